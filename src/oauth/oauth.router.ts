import { type Context, Hono } from 'hono';
import type { AppContext } from '../context.ts';
import { type ApiError, OAuthError } from '../errors.ts';
import type { AppEnv } from '../http/env.ts';
import { apiErrorResponse, tokenErrorResponse } from '../http/errors.ts';
import { byAddress, rateLimit } from '../http/rate-limit.ts';
import {
  AuthorizeError,
  checkIdTokenHint,
  createAuthorizationRequest,
  validateAuthorizeRequest,
} from './authorize-request.ts';
import { callbackUrl } from './callback-url.ts';
import { clientRequest } from './client-request.ts';
import { authorizeErrorPage, rateLimitedPage } from './error-page.tsx';
import { revokeToken } from './revocation.ts';

/**
 * GET/POST /v1/oauth/authorize and POST /v1/oauth/revoke (POST /v1/oauth/token is token-endpoint.ts).
 */
export function oauthRouter(ctx: AppContext) {
  const app = new Hono<AppEnv>();
  const identityUrl = ctx.config.server.identity_url;
  const issuer = ctx.config.server.base_url;

  // One bucket per client address shared by every /v1/oauth/* endpoint (DESIGN.md §5; the token and
  // revocation endpoints count in client-request.ts). Authorize counts at the default limit: nothing
  // there authenticates the client it names.
  app.use('/v1/oauth/authorize', rateLimit(ctx, 'oauth', byAddress, { respond: overLimit }));

  // A description may quote what the request sent (an unknown scope, a claims path): cut short, so a
  // crafted link cannot send the browser to the client's callback with a URL its server refuses.
  const brief = (text: string) => (text.length > 200 ? `${text.slice(0, 200)}…` : text);

  async function authorize(c: Context<AppEnv>, params: URLSearchParams) {
    try {
      const valid = await checkIdTokenHint(ctx, validateAuthorizeRequest(ctx, params), params);
      const id = createAuthorizationRequest(ctx, valid);
      return c.redirect(`${identityUrl}/authorize/${id}`, 303);
    } catch (e) {
      if (!(e instanceof AuthorizeError)) throw e;
      if (e.redirectUri) {
        const url = callbackUrl(e.redirectUri, {
          error: e.error,
          error_description: brief(e.description),
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

  // RFC 7009: the client authenticates as at the token endpoint, and hears 200 whatever the token was.
  app.post('/v1/oauth/revoke', async (c) => {
    const headers: Record<string, string> = { 'Cache-Control': 'no-store', Vary: 'Origin' };
    try {
      const text = await c.req.text();
      const { body, client } = await clientRequest(ctx, c.req.raw, text, c.get('clientIp'), headers, 'token');
      await revokeToken(c.var.ctx, client, body.token!);
      return c.body(null, 200, headers);
    } catch (e) {
      for (const [k, v] of Object.entries(headers)) c.header(k, v);
      return tokenErrorResponse(e, c);
    }
  });

  // Another method at the POST-only endpoints (their POST and CORS preflight answer first): their own
  // shape, naming the method to use.
  for (const path of ['/v1/oauth/token', '/v1/oauth/revoke'])
    app.all(path, (c) =>
      tokenErrorResponse(
        new OAuthError('invalid_request', 'This endpoint accepts POST only.', 405, { Allow: 'POST' }),
        c,
      ),
    );

  return app;
}

/**
 * Over the limit, a browser at authorize (it asks for HTML) gets a page saying how long to wait, with
 * the same status and headers; anything else gets the API's JSON.
 */
async function overLimit(err: ApiError, c: Context<AppEnv>): Promise<Response> {
  const browser =
    c.req.path === '/v1/oauth/authorize' && (c.req.header('accept') ?? '').includes('text/html');
  if (!browser) return apiErrorResponse(err, c);
  const page = await rateLimitedPage(Number(err.headers['Retry-After']), c.get('requestId'));
  return c.body(page.body, 429, { ...page.headers, ...err.headers });
}
