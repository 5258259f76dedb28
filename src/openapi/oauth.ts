import { z } from 'zod';
import { SCOPES } from '../capabilities/scopes.ts';
import { rated, TokenErrorBody, tooManyRequests } from './common.ts';
import { type ApiRoute, route } from './route.ts';

/**
 * The authorize parameters. The authorize endpoint checks them one rule at a time in
 * `src/oauth/authorize-checks.ts` (so that each failure can be redirected with its own error); this
 * schema describes the same rules for readers of the document.
 */
export const AuthorizeQuery = z.object({
  response_type: z.literal('code'),
  client_id: z
    .string()
    .meta({ description: 'Client ID of the application environment (`cid_test_…`, `cid_live_…`).' }),
  redirect_uri: z.string().meta({ description: 'Exactly one of the registered callback URIs.' }),
  scope: z.string().meta({
    description: `Space-separated subset of the application's enabled scopes. Known scopes: ${SCOPES.join(', ')}.`,
  }),
  state: z.string().meta({ description: 'Unpredictable, at least 32 random bytes, returned unchanged.' }),
  nonce: z
    .string()
    .max(512)
    .optional()
    .meta({ description: 'Required with `openid`; returned in the ID token.' }),
  code_challenge: z
    .string()
    .regex(/^[A-Za-z0-9_-]{43}$/)
    .optional()
    .meta({ description: 'base64url SHA-256 of the PKCE verifier. Required for public clients.' }),
  code_challenge_method: z.literal('S256').optional(),
  purpose: z.string().optional().meta({ description: 'Plain-language reason shown at consent.' }),
  display: z.enum(['page', 'popup']).optional(),
  prompt: z.string().optional().meta({ description: '`none`, or any of `login` and `consent`.' }),
  max_age: z
    .string()
    .regex(/^\d{1,10}$/)
    .optional(),
  login_hint: z.string().max(256).optional(),
  ui_locales: z.string().optional(),
  acr_values: z
    .string()
    .optional()
    .meta({
      description:
        'Acceptable assurance levels (`none`, `low`, `substantial`, `high`), space-separated in preference order; ' +
        'a person below the lowest one listed (or the environment minimum) ends with `unmet_authentication_requirements`.',
    }),
  claims: z.string().max(4096).optional().meta({
    description:
      'JSON claims request (OpenID Connect Core §5.5), with `verified_claims` (OpenID Connect for Identity Assurance 1.0). Places and narrows claims; never releases one no approved scope covers.',
  }),
  response_mode: z.literal('query').optional(),
});

export const TokenRequest = z
  .object({
    grant_type: z.literal('authorization_code'),
    code: z.string().meta({ description: 'The one-time code from the callback.' }),
    redirect_uri: z.string().meta({ description: 'The same redirect URI as in the authorization request.' }),
    client_id: z.string(),
    code_verifier: z
      .string()
      .min(43)
      .max(128)
      .optional()
      .meta({ description: 'The PKCE verifier; required when the authorization request had a challenge.' }),
    client_secret: z
      .string()
      .optional()
      .meta({ description: 'Only for `client_secret_post`; otherwise use HTTP Basic.' }),
  })
  .meta({ id: 'TokenRequest' });

export const TokenResponse = z
  .object({
    access_token: z.string().meta({ description: 'Opaque bearer credential (`at_…`).' }),
    token_type: z.literal('Bearer'),
    expires_in: z.literal(900),
    id_token: z
      .string()
      .optional()
      .meta({ description: 'RS256 JWT; present only when `openid` was approved.' }),
    scope: z.string().meta({ description: 'Space-separated granted scopes.' }),
  })
  .meta({ id: 'TokenResponse', description: 'No refresh token is issued.' });

export const RevocationRequest = z
  .object({
    token: z.string().meta({ description: 'The access token to revoke (`at_…`).' }),
    token_type_hint: z
      .string()
      .optional()
      .meta({ description: '`access_token`; other values are ignored (RFC 7009 §2.1).' }),
    client_id: z.string().optional().meta({ description: 'Required unless the client uses HTTP Basic.' }),
    client_secret: z
      .string()
      .optional()
      .meta({ description: 'Only for `client_secret_post`; otherwise use HTTP Basic.' }),
  })
  .meta({ id: 'RevocationRequest' });

const tokenError = (description: string, headers: string[] = rated()) => ({
  description,
  schema: TokenErrorBody,
  headers,
});

const authorizeResponses = {
  303: {
    description:
      'To the hosted identity experience when the request is valid; otherwise to the callback with `error`, `error_description`, `state` and `iss`.',
    headers: rated('Location'),
  },
  400: {
    description: 'Unknown client or unregistered redirect URI: an HTML error page, never a redirect.',
    contentType: 'text/html',
    schema: z.string(),
    headers: rated(),
  },
  429: tooManyRequests,
};

export const oauthRoutes: ApiRoute[] = [
  route({
    method: 'get',
    path: '/v1/oauth/authorize',
    operationId: 'authorize',
    summary: 'Start the hosted flow',
    description:
      'Validates every parameter before the person signs in, then sends the browser to the identity experience. The browser finally arrives at the callback with `code` and `state`, or with `error`.',
    tag: 'OAuth',
    query: AuthorizeQuery,
    responses: authorizeResponses,
  }),
  route({
    method: 'post',
    path: '/v1/oauth/authorize',
    operationId: 'authorizeForm',
    summary: 'Start the hosted flow (form post)',
    description:
      'The same as the GET form, with the parameters in a form body (OpenID Connect Core §3.1.2.1).',
    tag: 'OAuth',
    body: { schema: AuthorizeQuery, contentTypes: ['application/x-www-form-urlencoded'], required: true },
    responses: authorizeResponses,
  }),
  route({
    method: 'post',
    path: '/v1/oauth/token',
    operationId: 'token',
    summary: 'Exchange the code',
    description:
      'Confidential clients authenticate with HTTP Basic (or `client_secret` in the body); public clients send no secret and must use PKCE. A code works once: a second exchange fails with `invalid_grant` and revokes the tokens issued from it.',
    tag: 'OAuth',
    security: [{ clientSecretBasic: [] }, {}],
    body: {
      schema: TokenRequest,
      contentTypes: ['application/json', 'application/x-www-form-urlencoded'],
      required: true,
    },
    responses: {
      200: { description: 'The tokens.', schema: TokenResponse, headers: rated('Cache-Control') },
      400: tokenError('`invalid_request`, `invalid_grant`, `invalid_scope` or `unsupported_grant_type`.'),
      401: tokenError('`invalid_client`.', rated('WWW-Authenticate')),
      429: tokenError('`RATE_LIMIT_EXCEEDED`; honour `Retry-After`.', rated('Retry-After')),
      500: { description: '`server_error`.', schema: TokenErrorBody },
    },
  }),
  route({
    method: 'post',
    path: '/v1/oauth/revoke',
    operationId: 'revokeToken',
    summary: 'Revoke an access token',
    description:
      'RFC 7009. The client authenticates as at the token endpoint. A revoked token fails UserInfo and the documents API at once, and `token.revoked` is sent. The answer is 200 with an empty body for an unknown, expired or already revoked token too, and for a token issued to another client, which stays valid.',
    tag: 'OAuth',
    security: [{ clientSecretBasic: [] }, {}],
    body: {
      schema: RevocationRequest,
      contentTypes: ['application/x-www-form-urlencoded', 'application/json'],
      required: true,
    },
    responses: {
      200: { description: 'Done (or nothing to do); empty body.', headers: rated('Cache-Control') },
      400: tokenError('`invalid_request` (no `token`, or a body that is not form or JSON).'),
      401: tokenError('`invalid_client`.', rated('WWW-Authenticate')),
      429: tokenError('`RATE_LIMIT_EXCEEDED`; honour `Retry-After`.', rated('Retry-After')),
      500: { description: '`server_error`.', schema: TokenErrorBody },
    },
  }),
];
