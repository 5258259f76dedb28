import { type Context, type Handler, Hono } from 'hono';
import type { AppContext } from '../context.ts';
import { OAuthError } from '../errors.ts';
import { bodyLimit } from '../http/body-limit.ts';
import type { AppEnv } from '../http/env.ts';
import { tokenErrorResponse } from '../http/errors.ts';
import {
  countRequest,
  type RateLimitScope,
  rateLimit,
  rateLimitExceeded,
  rateLimitHeaders,
} from '../http/rate-limit.ts';
import { recordRequest, setRequestContext } from '../http/request-context.ts';
import { setRequestId } from '../http/request-id.ts';
import { AuthorizeError, createAuthorizationRequest, validateAuthorizeRequest } from './authorize-request.ts';
import { callbackUrl } from './callback-url.ts';
import { findClient, type OAuthClient } from './client.store.ts';
import { authenticateClient, type ClientCredentials, readClientCredentials } from './client-auth.ts';
import { authorizeErrorPage } from './error-page.ts';
import { exchangeCode } from './token.ts';
import { parseTokenBody } from './token-body.ts';

// Every legitimate OAuth request body is a few hundred bytes.
const MAX_BODY = 64 * 1024;
const tooLarge = (c: Context) =>
  tokenErrorResponse(new OAuthError('invalid_request', 'The request body is too large.', 413), c);

/** GET/POST /v1/oauth/authorize (POST /v1/oauth/token is `tokenEndpoint`). */
export function oauthRouter(ctx: AppContext) {
  const app = new Hono<AppEnv>();
  const identityUrl = ctx.config.server.identity_url;
  const issuer = ctx.config.server.base_url;

  app.post('/v1/oauth/*', bodyLimit({ maxSize: MAX_BODY, onError: tooLarge }));

  // One bucket per client address shared by every /v1/oauth/* endpoint (DESIGN.md §5; the token
  // endpoint counts in tokenEndpoint); the client named in the request selects its environment's and
  // plan's limit.
  app.use(
    '/v1/oauth/*',
    rateLimit(ctx, 'oauth', (c) => `ip:${c.get('clientIp')}`, { scopeOf: (c) => authorizeScope(ctx, c) }),
  );

  async function authorize(c: Context<AppEnv>, params: URLSearchParams) {
    try {
      const valid = validateAuthorizeRequest(ctx, params);
      const id = createAuthorizationRequest(ctx, valid);
      return c.redirect(`${identityUrl}/authorize/${id}`, 303);
    } catch (e) {
      if (!(e instanceof AuthorizeError)) throw e;
      if (e.redirectUri) {
        const url = callbackUrl(e.redirectUri, {
          error: e.error,
          error_description: e.description,
          state: e.state,
          iss: issuer,
        });
        return c.redirect(url, 303);
      }
      const page = await authorizeErrorPage(e.error, e.description, c.get('requestId'));
      return c.body(page.body, 400, page.headers);
    }
  }

  app.get('/v1/oauth/authorize', (c) => authorize(c, new URL(c.req.url).searchParams));
  app.post('/v1/oauth/authorize', async (c) => {
    const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    const params =
      type === 'application/x-www-form-urlencoded'
        ? new URLSearchParams(await c.req.text())
        : new URLSearchParams();
    return authorize(c, params);
  });

  return app;
}

/**
 * POST /v1/oauth/token. It is mounted ahead of the app's middleware (see http/app.ts) and does that
 * middleware's work itself, in the same order: request id and client address, body limit, the OAuth
 * rate limit (at the limit of the client the request names), then the exchange, then metrics. The
 * endpoint is bound by its RS256 signature, and passing through the chain of middleware layers cost
 * about as much as all of its database work.
 */
export function tokenEndpoint(ctx: AppContext): Handler<AppEnv> {
  const limitBody = bodyLimit({ maxSize: MAX_BODY, onError: tooLarge });
  return async function token(c) {
    const start = performance.now();
    setRequestId(c);
    setRequestContext(ctx, c);
    const counted: { headers?: Record<string, string> } = {};
    try {
      const refused = await limitBody(c, async () => {
        c.res = await exchange(ctx, c, counted);
      });
      if (refused) c.res = refused;
    } catch (e) {
      for (const [k, v] of Object.entries(counted.headers ?? {})) c.header(k, v);
      c.res = tokenErrorResponse(e instanceof Error ? e : new Error(String(e)), c);
    }
    recordRequest(ctx, c, '/v1/oauth/token', start);
    return c.res;
  };
}

/** The exchange itself; `counted` receives the rate-limit headers as soon as the request is counted. */
async function exchange(
  ctx: AppContext,
  c: Context<AppEnv>,
  counted: { headers?: Record<string, string> },
): Promise<Response> {
  const text = await c.req.text();
  let body: Record<string, string> | undefined;
  let credentials: ClientCredentials | undefined;
  let client: OAuthClient | undefined;
  let bodyError: unknown;
  let credentialsError: unknown;
  try {
    body = parseTokenBody(c.req.header('content-type'), text);
    try {
      credentials = readClientCredentials(c.req.header('authorization'), body);
      client = findClient(ctx.db, credentials.clientId);
    } catch (e) {
      credentialsError = e;
    }
  } catch (e) {
    bodyError = e;
  }
  // Counted before anything is refused; a malformed request counts at the default limit.
  const hit = await countRequest(ctx, 'oauth', `ip:${c.get('clientIp')}`, client && scopeOf(client));
  counted.headers = rateLimitHeaders(hit);
  if (!hit.allowed) throw rateLimitExceeded(hit);
  if (!body) throw bodyError;
  if (!body.grant_type) throw new OAuthError('invalid_request', 'The grant_type parameter is required.');
  if (!credentials) throw credentialsError;
  const authenticated = authenticateClient(ctx, credentials, client);
  if (body.grant_type !== 'authorization_code')
    throw new OAuthError('unsupported_grant_type', 'Only the authorization_code grant is supported.');
  const result = await exchangeCode(ctx, authenticated, body);
  // All headers in one go: each c.header() call costs a Headers update.
  return c.json(result, 200, { ...counted.headers, 'Cache-Control': 'no-store', Pragma: 'no-cache' });
}

const scopeOf = (client: OAuthClient): RateLimitScope => ({
  environment: client.environment,
  plan: client.plan,
});

/** The environment and plan of the client an authorize request names, for its limit. */
function authorizeScope(ctx: AppContext, c: Context<AppEnv>): RateLimitScope | undefined {
  const clientId = c.req.query('client_id');
  const client = clientId ? findClient(ctx.db, clientId) : undefined;
  return client && scopeOf(client);
}
