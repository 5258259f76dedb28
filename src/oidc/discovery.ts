import { CLAIMS_SUPPORTED } from '../capabilities/scope-catalogue.ts';
import { SCOPES } from '../capabilities/scopes.ts';
import type { Config } from '../config/schema.ts';

/** Claims of the ID token itself, beside those UserInfo releases. */
const ID_TOKEN_CLAIMS = ['iss', 'aud', 'exp', 'iat', 'auth_time', 'nonce', 'azp', 'at_hash', 'acr', 'amr'];

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
    userinfo_endpoint: `${base}/v1/userinfo`,
    jwks_uri: `${base}/.well-known/jwks.json`,
    // On the identity surface: it ends the session whose cookie only that host receives.
    end_session_endpoint: `${config.server.identity_url.replace(/\/+$/, '')}/logout`,
    scopes_supported: [...SCOPES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code'],
    subject_types_supported: ['pairwise'],
    id_token_signing_alg_values_supported: ['RS256'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    code_challenge_methods_supported: ['S256'],
    claims_supported: [...new Set([...ID_TOKEN_CLAIMS, ...CLAIMS_SUPPORTED])],
    claim_types_supported: ['normal'],
    claims_parameter_supported: false,
    acr_values_supported: ['none', 'low', 'substantial', 'high'],
    prompt_values_supported: ['none', 'login', 'consent'],
    display_values_supported: ['page', 'popup'],
    ui_locales_supported: ['en'],
    request_parameter_supported: false,
    request_uri_parameter_supported: false,
    require_request_uri_registration: false,
    authorization_response_iss_parameter_supported: true,
  };
}
