import { IDA_DOCUMENT_TYPES } from '../assurance/verification.ts';
import { CLAIMS_IN_VERIFIED_CLAIMS } from '../assurance/verified-claims.ts';
import { CLAIMS_SUPPORTED } from '../capabilities/scope-catalogue.ts';
import { SCOPES } from '../capabilities/scopes.ts';
import { type Config, SANDBOX_TRUST_FRAMEWORK } from '../config/schema.ts';
import { SIGNING_ALGS } from '../keys/signing-algs.ts';
import { CHECK_METHODS } from '../persons/check-methods.ts';
import { ID_TOKEN_CLAIMS } from './requested-claims.ts';

/**
 * OpenID Connect for Identity Assurance 1.0 §8 metadata (with `verified_claims_supported`
 * of its drafts, which relying parties still read): the trust frameworks of sandbox and (when
 * configured) production, evidence of type `document` of Verity's document types, the check methods
 * its documents may carry (import accepts only these), and the claims it places in `verified_claims`.
 * Without any trust framework (no sandbox personas and none configured) nothing is offered.
 */
function assuranceMetadata(config: Config) {
  const frameworks = [
    ...(config.identity.sandbox ? [SANDBOX_TRUST_FRAMEWORK] : []),
    ...(config.assurance.trust_framework ? [config.assurance.trust_framework] : []),
  ];
  if (!frameworks.length) return {};
  return {
    verified_claims_supported: true,
    trust_frameworks_supported: frameworks,
    evidence_supported: ['document'],
    documents_supported: [...new Set(Object.values(IDA_DOCUMENT_TYPES))],
    documents_check_methods_supported: [...CHECK_METHODS],
    claims_in_verified_claims_supported: [...CLAIMS_IN_VERIFIED_CLAIMS],
  };
}

/** The token and revocation endpoints authenticate clients alike (oauth/client-request.ts). */
const CLIENT_AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'none'];

/**
 * OpenID Connect Discovery 1.0 metadata (also valid RFC 8414 metadata), stating exactly what Verity
 * supports (DESIGN.md §5).
 */
export function discoveryDocument(config: Config) {
  const base = config.server.base_url;
  return {
    issuer: base,
    authorization_endpoint: `${base}/v1/oauth/authorize`,
    token_endpoint: `${base}/v1/oauth/token`,
    revocation_endpoint: `${base}/v1/oauth/revoke`,
    userinfo_endpoint: `${base}/v1/userinfo`,
    jwks_uri: `${base}/.well-known/jwks.json`,
    // On the identity surface: it ends the session whose cookie only that host receives.
    end_session_endpoint: `${config.server.identity_url.replace(/\/+$/, '')}/logout`,
    scopes_supported: [...SCOPES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code'],
    subject_types_supported: ['pairwise'],
    id_token_signing_alg_values_supported: [...SIGNING_ALGS],
    token_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
    revocation_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
    code_challenge_methods_supported: ['S256'],
    claims_supported: [...new Set([...ID_TOKEN_CLAIMS, ...CLAIMS_SUPPORTED, 'verified_claims'])],
    claim_types_supported: ['normal'],
    claims_parameter_supported: true,
    acr_values_supported: ['none', 'low', 'substantial', 'high'],
    prompt_values_supported: ['none', 'login', 'consent'],
    display_values_supported: ['page', 'popup'],
    ui_locales_supported: ['en'],
    request_parameter_supported: false,
    request_uri_parameter_supported: false,
    require_request_uri_registration: false,
    authorization_response_iss_parameter_supported: true,
    ...assuranceMetadata(config),
  };
}
