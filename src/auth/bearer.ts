import type { MiddlewareHandler } from 'hono';
import { ACCESS_TOKEN_PREFIX } from '../apps/credential-prefixes.ts';
import { recordTokenUse } from '../consent/grant.ts';
import type { AppContext } from '../context.ts';
import { locatedSecretId, matchesStoredHash } from '../crypto/located-secret.ts';
import type { Environment } from '../environment.ts';
import { ApiError, OAuthError } from '../errors.ts';
import { addressKey } from '../http/address-key.ts';
import { corsForClient, type WebOriginsOf } from '../http/cors.ts';
import type { AppEnv } from '../http/env.ts';
import { countRequest, rateLimitExceeded, rateLimitHeaders } from '../http/rate-limit.ts';
import { unix } from '../platform/clock.ts';
import { type AccessTokenGrantRow, accessTokenGrant } from './access-token.store.ts';

/** What a valid access token lets its holder read, with the consent and application it belongs to. */
export interface AccessGrant {
  consentId: string;
  personId: string;
  /** A sandbox persona's identity session, which holds its consents and sharing switches. */
  sessionIdHash: string | null;
  applicationId: string;
  environmentId: string;
  environment: Environment;
  scopes: ReadonlySet<string>;
  acr: string;
  /** This authorization's face assurance. */
  livenessVerified: boolean;
  faceMatchVerified: boolean;
  /** The application environment's document policy (allowed types and issuing countries). */
  documentTypes: readonly string[];
  documentCountries: readonly string[];
  /** The operator approved this application for `document_number_full`. */
  fullNumberApproved: boolean;
  /** The authorization request's `claims` parameter as stored (normalised JSON), or null. */
  claims: string | null;
}

export interface BearerEnv {
  Variables: AppEnv['Variables'] & { grant: AccessGrant };
  Bindings: AppEnv['Bindings'];
}

/** The realm named in every challenge. */
const REALM = 'verity';

const challenge = (error?: string) => (error ? `Bearer error="${error}"` : `Bearer realm="${REALM}"`);

/** RFC 6750 §3.1: 401 with a challenge that names the problem; no error code when no token was sent. */
export const missingToken = () =>
  new OAuthError('invalid_token', 'An access token is required (Authorization: Bearer).', 401, {
    'WWW-Authenticate': challenge(),
  });

export const invalidToken = (description = 'The access token is invalid, expired or revoked.') =>
  new OAuthError('invalid_token', description, 401, { 'WWW-Authenticate': challenge('invalid_token') });

const invalidRequest = (description: string) =>
  new OAuthError('invalid_request', description, 400, { 'WWW-Authenticate': challenge('invalid_request') });

export const insufficientScope = (scope: string) =>
  new OAuthError('insufficient_scope', `This request needs the scope ${scope}.`, 403, {
    'WWW-Authenticate': challenge('insufficient_scope'),
  });

/**
 * The token a request presents (RFC 6750 §2): the Authorization header, or for a POST the
 * form-encoded body field, read through `body`. A token in the query string is refused — it ends up in
 * logs and Referer headers — and so is one sent in more than one way, which §2 forbids.
 */
export async function presentedToken(req: Request, body: () => Promise<string>): Promise<string | undefined> {
  if (req.url.includes('access_token') && new URL(req.url).searchParams.has('access_token'))
    throw invalidRequest('The access token must not be sent in the query string.');
  const header = req.headers.get('authorization');
  let fromHeader: string | undefined;
  if (header !== null) {
    const m = /^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)\s*$/i.exec(header);
    if (!m) {
      if (/^Bearer\b/i.test(header.trim())) throw invalidToken('The Authorization header is malformed.');
      // Another scheme (e.g. Basic): no bearer credentials were presented.
    } else fromHeader = m[1];
  }
  let fromBody: string | undefined;
  const type = (req.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (req.method === 'POST' && type === 'application/x-www-form-urlencoded') {
    const form = new URLSearchParams(await body());
    if (form.getAll('access_token').length > 1)
      throw invalidRequest('The access token was sent more than once.');
    const v = form.get('access_token');
    if (v !== null) fromBody = v;
  }
  if (fromHeader !== undefined && fromBody !== undefined)
    throw invalidRequest('The access token was sent in more than one way.');
  return fromHeader ?? fromBody;
}

/** The row of a token that was issued (its hash matches), usable or not. */
function issuedToken(ctx: AppContext, token: string): AccessTokenGrantRow | undefined {
  const id = locatedSecretId(token, ACCESS_TOKEN_PREFIX);
  const row = id === undefined ? undefined : accessTokenGrant(ctx.db, id, unix(ctx.clock));
  return row && matchesStoredHash(token, row.token_hash) ? row : undefined;
}

/**
 * The grant behind a token, checked at every use: the token is known, unexpired and not revoked, its
 * consent is active and not past its own expiry (so revocation, disconnection and consent expiry cut
 * off a token that has not reached its 15 minutes), and the person is not disabled. The caller records
 * the use on the consent once it serves the request.
 */
function usableGrant(row: AccessTokenGrantRow | undefined): AccessGrant {
  if (!row?.usable) throw invalidToken();
  if (!row.consent_in_force) throw invalidToken('The consent behind this access token has ended.');
  return grantOf(row);
}

/**
 * The token's scopes the application still has: one taken from it (by its developer or in a review)
 * stops being released at once, as a narrowed document policy does, not when the token expires.
 */
function scopesInForce(row: AccessTokenGrantRow): ReadonlySet<string> {
  const kept = new Set(JSON.parse(row.environment_scopes) as string[]);
  return new Set((JSON.parse(row.scopes) as string[]).filter((s) => kept.has(s)));
}

/** What a token's row lets its holder read. */
export function grantOf(row: AccessTokenGrantRow): AccessGrant {
  return {
    consentId: row.consent_id,
    personId: row.person_id,
    sessionIdHash: row.session_id_hash,
    applicationId: row.application_id,
    environmentId: row.environment_id,
    environment: row.environment,
    scopes: scopesInForce(row),
    acr: row.acr,
    livenessVerified: row.liveness_verified === 1,
    faceMatchVerified: row.face_match_verified === 1,
    documentTypes: JSON.parse(row.document_types) as string[],
    documentCountries: JSON.parse(row.document_countries) as string[],
    fullNumberApproved: row.full_number_approved === 1,
    claims: row.claims,
  };
}

const originNotAllowed = (origin: string | null) =>
  new ApiError(
    'ORIGIN_NOT_ALLOWED',
    `The origin ${origin} is not an allowed web origin of this client.`,
    403,
  );

/** What the guard is given of a request. */
export interface BearerRequest {
  req: Request;
  /** The client address, for the limit of a request without a valid token (read only then). */
  ip: () => string;
  /** The form body of a POST (RFC 6750 §2.2), read within the route's body limit. */
  body: () => Promise<string>;
}

/**
 * The guard of UserInfo and the documents API, in order: read and authenticate the token, count the
 * request (against the token's limit, 600 a minute by default, only if it authenticated; anything
 * else against the client address, so made-up tokens neither escape the limit nor get buckets of
 * their own), apply CORS for the client the token was issued to (a page of another origin goes no
 * further), then refuse it (400 for the forbidden ways of sending a token, 401) or record the use on
 * the consent and return the grant. `headers` collects what every answer carries, refusals included:
 * `Cache-Control: no-store` (the responses hold personal data), the rate-limit and CORS headers.
 */
export type BearerGuard = (r: BearerRequest, headers: Record<string, string>) => Promise<AccessGrant>;

export function createBearerGuard(ctx: AppContext, webOriginsOf: WebOriginsOf): BearerGuard {
  const ownOrigin = new URL(ctx.config.server.base_url).origin;
  return (r, headers) => guard(ctx, ownOrigin, webOriginsOf, r, headers);
}

async function guard(
  ctx: AppContext,
  ownOrigin: string,
  webOriginsOf: WebOriginsOf,
  r: BearerRequest,
  headers: Record<string, string>,
): Promise<AccessGrant> {
  headers['Cache-Control'] = 'no-store';
  headers.Pragma = 'no-cache';
  let token: string | undefined;
  let row: AccessTokenGrantRow | undefined;
  let grant: AccessGrant | undefined;
  let failure: unknown;
  try {
    token = await presentedToken(r.req, r.body);
    if (token === undefined) throw missingToken();
    // Access tokens are opaque `at_…` values; anything else (an ID token, any JWT) is never one.
    if (!token.startsWith(ACCESS_TOKEN_PREFIX)) throw invalidToken();
    row = issuedToken(ctx, token);
    grant = usableGrant(row);
  } catch (e) {
    failure = e;
  }
  // The token's stored hash (it matched): the bucket key is stored, and a token never is in the clear.
  const key = grant ? `token:${row!.token_hash}` : addressKey(r.ip());
  const hit = await countRequest(ctx, 'userinfo', key, undefined);
  if (!hit.allowed) throw rateLimitExceeded(hit);
  Object.assign(headers, rateLimitHeaders(hit));
  // An unknown token names no client: no CORS headers, and the 401 below.
  const cors = corsForClient(r.req, ownOrigin, () => (row ? webOriginsOf(row.environment_id) : []));
  Object.assign(headers, cors.headers);
  if (!cors.allowed && row) throw originNotAllowed(r.req.headers.get('origin'));
  if (!grant) throw failure;
  recordTokenUse(ctx, grant.consentId);
  return grant;
}

/**
 * The bearer guard as hono middleware: the grant goes on the context, the headers on every answer
 * (the documents API answers through c.json and c.body, which carry them).
 */
export function bearerGuard(ctx: AppContext, webOriginsOf: WebOriginsOf): MiddlewareHandler<BearerEnv> {
  const guard = createBearerGuard(ctx, webOriginsOf);
  return async function bearer(c, next) {
    const headers: Record<string, string> = {};
    try {
      c.set(
        'grant',
        await guard({ req: c.req.raw, ip: () => c.get('clientIp'), body: () => c.req.text() }, headers),
      );
    } finally {
      for (const [name, value] of Object.entries(headers)) c.header(name, value);
    }
    await next();
  };
}
