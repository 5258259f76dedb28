import { type Context, Hono } from 'hono';
import type { AppContext } from '../context.ts';
import { OAuthError } from '../errors.ts';
import { bodyLimit } from '../http/body-limit.ts';
import type { AppEnv } from '../http/env.ts';
import { apiErrorResponse, tokenErrorResponse } from '../http/errors.ts';
import { type RateLimitScope, rateLimit } from '../http/rate-limit.ts';
import { AuthorizeError, createAuthorizationRequest, validateAuthorizeRequest } from './authorize-request.ts';
import { callbackUrl } from './callback-url.ts';
import { findClient, type OAuthClient } from './client.store.ts';
import { authenticateClient, type ClientCredentials, readClientCredentials } from './client-auth.ts';
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
    const request = await tokenRequest(ctx, c);
    const body = request.body;
    if (!body.grant_type) throw new OAuthError('invalid_request', 'The grant_type parameter is required.');
    const client = authenticateClient(ctx, request.credentials(), request.client);
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
 * The token request as both the rate limiter (for the client's environment and plan) and the handler
 * need it, worked out once per request: its parameters, the credentials it presents and the client
 * they name. A malformed body or Authorization header is kept as the error the handler will answer.
 */
interface TokenRequest {
  body: Record<string, string>;
  /** The presented credentials; throws the OAuth error for malformed ones. */
  credentials(): ClientCredentials;
  /** The client named by the credentials, looked up once. */
  client: OAuthClient | undefined;
}

const tokenRequests = new WeakMap<Request, Promise<TokenRequest>>();

function tokenRequest(ctx: AppContext, c: Context<AppEnv>): Promise<TokenRequest> {
  let request = tokenRequests.get(c.req.raw);
  if (!request) {
    request = readTokenRequest(ctx, c);
    tokenRequests.set(c.req.raw, request);
  }
  return request;
}

async function readTokenRequest(ctx: AppContext, c: Context<AppEnv>): Promise<TokenRequest> {
  const body = parseTokenBody(c.req.header('content-type'), await c.req.text());
  let credentials: ClientCredentials | undefined;
  let error: unknown;
  try {
    credentials = readClientCredentials(c.req.header('authorization'), body);
  } catch (e) {
    error = e;
  }
  return {
    body,
    credentials: () => {
      if (!credentials) throw error;
      return credentials;
    },
    client: credentials && findClient(ctx.db, credentials.clientId),
  };
}

/** The environment and plan of the client a request names, for per-environment/per-plan limits. */
async function oauthScope(ctx: AppContext, c: Context<AppEnv>): Promise<RateLimitScope | undefined> {
  let client: OAuthClient | undefined;
  if (c.req.method === 'POST' && c.req.path === '/v1/oauth/token') {
    // A malformed request is refused by the handler; it counts at the default limit.
    client = await tokenRequest(ctx, c).then(
      (r) => r.client,
      () => undefined,
    );
  } else {
    const clientId = c.req.query('client_id');
    client = clientId ? findClient(ctx.db, clientId) : undefined;
  }
  return client ? { environment: client.environment, plan: client.plan } : undefined;
}
