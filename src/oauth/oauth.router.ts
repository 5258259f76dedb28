import { type Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { AppContext } from '../context.ts';
import { OAuthError } from '../errors.ts';
import type { AppEnv } from '../http/env.ts';
import { apiErrorResponse, tokenErrorResponse } from '../http/errors.ts';
import { type RateLimitScope, rateLimit } from '../http/rate-limit.ts';
import { AuthorizeError, createAuthorizationRequest, validateAuthorizeRequest } from './authorize-request.ts';
import { callbackUrl } from './callback-url.ts';
import { findClient } from './client.store.ts';
import { authenticateClient, readClientCredentials } from './client-auth.ts';
import { authorizeErrorPage } from './error-page.ts';
import { exchangeCode } from './token.ts';
import { parseTokenBody } from './token-body.ts';

/** GET/POST /v1/oauth/authorize and POST /v1/oauth/token */
export function oauthRouter(ctx: AppContext) {
  const app = new Hono<AppEnv>();
  const identityUrl = ctx.config.server.identity_url;
  const issuer = ctx.config.server.base_url;

  // Every legitimate OAuth request body is a few hundred bytes. First, so that the rate limiter's
  // look at the body (for the client's environment) reads a bounded one.
  const limitBody = bodyLimit({
    maxSize: 64 * 1024,
    onError: (c) =>
      tokenErrorResponse(new OAuthError('invalid_request', 'The request body is too large.', 413), c),
  });
  app.post('/v1/oauth/*', limitBody);

  // One bucket per client address shared by every /v1/oauth/* endpoint (DESIGN.md §5); the client
  // named in the request (if any) selects its environment's and plan's limit.
  app.use(
    '/v1/oauth/*',
    rateLimit(ctx, 'oauth', (c) => `ip:${c.get('clientIp')}`, {
      scopeOf: (c) => oauthScope(ctx, c),
      respond: (err, c) =>
        c.req.path === '/v1/oauth/token' ? tokenErrorResponse(err, c) : apiErrorResponse(err, c),
    }),
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

  // The token endpoint answers in its own error shape, so it is a sub-app with its own onError.
  const token = new Hono<AppEnv>();
  token.post('/v1/oauth/token', async (c) => {
    const body = await tokenBody(c);
    if (!body.grant_type) throw new OAuthError('invalid_request', 'The grant_type parameter is required.');
    const client = authenticateClient(ctx, readClientCredentials(c.req.header('authorization'), body));
    if (body.grant_type !== 'authorization_code')
      throw new OAuthError('unsupported_grant_type', 'Only the authorization_code grant is supported.');
    const result = await exchangeCode(ctx, client, body);
    return c.json(result, 200, { 'Cache-Control': 'no-store', Pragma: 'no-cache' });
  });
  token.onError((err, c) => tokenErrorResponse(err, c));
  app.route('/', token);
  return app;
}

/**
 * The token request's parameters, parsed once per request: the rate limiter reads them (to find the
 * client's environment) before the handler does. Hono caches the body text for the second reader.
 */
const parsedBodies = new WeakMap<Request, Record<string, string>>();
async function tokenBody(c: Context<AppEnv>): Promise<Record<string, string>> {
  let body = parsedBodies.get(c.req.raw);
  if (!body) {
    body = parseTokenBody(c.req.header('content-type'), await c.req.text());
    parsedBodies.set(c.req.raw, body);
  }
  return body;
}

/** The environment and plan of the client a request names, for per-environment/per-plan limits. */
async function oauthScope(ctx: AppContext, c: Context<AppEnv>): Promise<RateLimitScope | undefined> {
  let clientId = c.req.query('client_id');
  if (!clientId && c.req.method === 'POST' && c.req.path === '/v1/oauth/token') {
    try {
      clientId = readClientCredentials(c.req.header('authorization'), await tokenBody(c)).clientId;
    } catch {
      // A malformed request is refused by the handler; it counts at the default limit.
      clientId = undefined;
    }
  }
  if (!clientId) return undefined;
  const client = findClient(ctx.db, clientId);
  return client ? { environment: client.environment, plan: client.plan } : undefined;
}
