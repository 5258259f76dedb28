import { z } from 'zod';
import { SIGNING_ALGS } from '../keys/signing-algs.ts';
import { apiError, internalError, rated, tooManyRequests } from './common.ts';
import { DocumentSummaryFields } from './documents.ts';
import { type ApiRoute, route } from './route.ts';

/** OpenID Connect Discovery 1.0 metadata, also served as RFC 8414 authorization server metadata. */
export const DiscoveryDocument = z
  .object({
    issuer: z.url(),
    authorization_endpoint: z.url(),
    token_endpoint: z.url(),
    revocation_endpoint: z.url(),
    userinfo_endpoint: z.url(),
    jwks_uri: z.url(),
    end_session_endpoint: z.url().meta({
      description:
        'RP-initiated logout, on the identity experience (`<identity_url>/logout`): GET or form POST with `id_token_hint`, `client_id`, `post_logout_redirect_uri`, `state`, `ui_locales`.',
    }),
    scopes_supported: z.array(z.string()),
    response_types_supported: z.array(z.literal('code')),
    response_modes_supported: z.array(z.string()),
    grant_types_supported: z.array(z.literal('authorization_code')),
    subject_types_supported: z.array(z.literal('pairwise')),
    id_token_signing_alg_values_supported: z.array(z.enum(SIGNING_ALGS)),
    token_endpoint_auth_methods_supported: z.array(
      z.enum(['client_secret_basic', 'client_secret_post', 'none']),
    ),
    revocation_endpoint_auth_methods_supported: z.array(
      z.enum(['client_secret_basic', 'client_secret_post', 'none']),
    ),
    code_challenge_methods_supported: z.array(z.literal('S256')),
    claims_supported: z.array(z.string()),
    claim_types_supported: z.array(z.string()),
    claims_parameter_supported: z.boolean(),
    acr_values_supported: z.array(z.string()),
    prompt_values_supported: z.array(z.string()),
    display_values_supported: z.array(z.string()),
    ui_locales_supported: z.array(z.string()),
    request_parameter_supported: z.boolean(),
    request_uri_parameter_supported: z.boolean(),
    require_request_uri_registration: z.boolean(),
    authorization_response_iss_parameter_supported: z.literal(true),
    // OpenID Connect for Identity Assurance 1.0 §8; absent when no trust framework is offered.
    verified_claims_supported: z.boolean().optional(),
    trust_frameworks_supported: z.array(z.string()).optional(),
    evidence_supported: z.array(z.literal('document')).optional(),
    documents_supported: z.array(z.string()).optional(),
    documents_check_methods_supported: z.array(z.string()).optional(),
    claims_in_verified_claims_supported: z.array(z.string()).optional(),
  })
  .meta({ id: 'DiscoveryDocument' });

const jwk = { kid: z.string(), use: z.literal('sig') };

export const Jwks = z
  .object({
    keys: z.array(
      z.discriminatedUnion('kty', [
        z.object({ kty: z.literal('RSA'), ...jwk, alg: z.literal('RS256'), n: z.string(), e: z.string() }),
        z.object({
          kty: z.literal('EC'),
          ...jwk,
          alg: z.literal('ES256'),
          crv: z.literal('P-256'),
          x: z.string(),
          y: z.string(),
        }),
        z.object({
          kty: z.literal('OKP'),
          ...jwk,
          alg: z.literal('EdDSA'),
          crv: z.literal('Ed25519'),
          x: z.string(),
        }),
      ]),
    ),
  })
  .meta({
    id: 'JWKS',
    description:
      'RFC 7517 key set, one key of each ID-token algorithm in each state: the active keys, the next keys (published ahead of use) and retired keys until every token they signed has expired.',
  });

const verifiedEntry = <T extends z.ZodRawShape>(shape: T) =>
  z.object({ ...shape, verified: z.boolean(), primary: z.boolean() });

/** The claims UserInfo may release (DESIGN.md §5 "Scope → claims"); each only when approved and available. */
export const UserInfo = z
  .object({
    sub: z.string().meta({ description: 'Pairwise subject: different for every application.' }),
    name: z.string().optional(),
    given_name: z.string().optional(),
    family_name: z.string().optional(),
    preferred_username: z.string().optional(),
    locale: z.string().optional(),
    updated_at: z.int().optional(),
    email: z.string().optional(),
    email_verified: z.boolean().optional(),
    emails: z.array(verifiedEntry({ email: z.string() })).optional(),
    phone_number: z.string().optional(),
    phone_number_verified: z.boolean().optional(),
    phone_numbers: z.array(verifiedEntry({ phone_number: z.string() })).optional(),
    legal_name: z.string().optional(),
    legal_given_name: z.string().optional(),
    legal_family_name: z.string().optional(),
    age: z.int().optional().meta({ description: 'Whole years, computed at request time.' }),
    age_over_18: z.boolean().optional(),
    birthdate: z.iso.date().optional(),
    nationalities: z.array(z.string().length(2)).optional(),
    identity_verified: z.boolean().optional(),
    identity_assurance_level: z.enum(['none', 'low', 'substantial', 'high']).optional(),
    liveness_verified: z.boolean().optional(),
    face_match_verified: z.boolean().optional(),
    picture: z
      .string()
      .optional()
      .meta({ description: 'A `data:image/jpeg;base64,…` URL of at most 64 KiB.' }),
    picture_verified: z.boolean().optional(),
    document: z
      .object({
        documentReference: DocumentSummaryFields.documentReference
          .optional()
          .meta({ description: 'With `identity_documents`: the reference for the documents API.' }),
        documentType: DocumentSummaryFields.documentType,
        issuingCountry: DocumentSummaryFields.issuingCountry,
        validityStatus: DocumentSummaryFields.validityStatus,
        verified: DocumentSummaryFields.verified,
        verifiedAt: DocumentSummaryFields.verifiedAt,
        expiryDate: z.iso.date().optional(),
        maskedDocumentNumber: z.string().optional(),
        documentNumber: z.string().optional(),
      })
      .optional()
      .meta({
        description:
          "Only the approved fields of the person's primary shared document (`document_*` scopes); no display name.",
      }),
    verified_claims: z
      .union([z.record(z.string(), z.unknown()), z.array(z.record(z.string(), z.unknown()))])
      .optional()
      .meta({
        description:
          'Only when the `claims` parameter asked for it in `userinfo`: an object (or a list, when a list was asked) as OpenID Identity Assurance Schema Definition 1.0 defines it.',
      }),
  })
  .meta({
    id: 'UserInfo',
    description:
      'The pairwise `sub` and only the approved claims. A claim that is not approved or not available is omitted; its absence must not be read as false.',
  });

const metadata = { description: 'The metadata.', schema: DiscoveryDocument, headers: ['Cache-Control'] };

/** The errors of every endpoint that takes an access token. */
export const bearerErrors = {
  400: apiError('`invalid_request`: the token was sent in the query string or in more than one way.', [
    'WWW-Authenticate',
  ]),
  401: apiError(
    '`invalid_token`: missing, unknown, expired or revoked token, or the consent was revoked, expired or disconnected.',
    ['WWW-Authenticate'],
  ),
  403: apiError(
    '`ORIGIN_NOT_ALLOWED`: a browser page of an origin the application did not register (no CORS headers).',
  ),
  429: tooManyRequests,
  500: internalError,
};

export const oidcRoutes: ApiRoute[] = [
  route({
    method: 'get',
    path: '/.well-known/openid-configuration',
    operationId: 'openidConfiguration',
    summary: 'Discovery document',
    tag: 'OpenID Connect',
    responses: { 200: metadata },
  }),
  route({
    method: 'get',
    path: '/.well-known/oauth-authorization-server',
    operationId: 'oauthAuthorizationServer',
    summary: 'Authorization server metadata (RFC 8414)',
    description: 'The same document as `/.well-known/openid-configuration`.',
    tag: 'OpenID Connect',
    responses: { 200: metadata },
  }),
  route({
    method: 'get',
    path: '/.well-known/jwks.json',
    operationId: 'jwks',
    summary: 'Public signing key set',
    description: 'Cache according to `Cache-Control`; refetch once when an unfamiliar `kid` appears.',
    tag: 'OpenID Connect',
    responses: { 200: { description: 'The key set.', schema: Jwks, headers: ['Cache-Control'] } },
  }),
  ...(['get', 'post'] as const).map((method) =>
    route({
      method,
      path: '/v1/userinfo',
      operationId: method === 'get' ? 'userinfo' : 'userinfoPost',
      summary: method === 'get' ? 'Approved claims' : 'Approved claims (POST, OpenID Connect Core §5.3)',
      tag: 'OpenID Connect',
      security: [{ accessToken: [] }],
      responses: {
        200: { description: 'The approved claims.', schema: UserInfo, headers: rated() },
        ...bearerErrors,
      },
    }),
  ),
];
