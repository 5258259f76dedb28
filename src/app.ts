import { type Context, Hono, type MiddlewareHandler } from 'hono';
import { applicationsRouter } from './api/applications.router.ts';
import { webhooksRouter } from './api/webhooks.router.ts';
import { registerSecurityEvents } from './audit/security-events.ts';
import { capabilitiesRouter } from './capabilities/capabilities.router.ts';
import { surfaceMount, surfacePath } from './config/surfaces.ts';
import type { AppContext } from './context.ts';
import { documentsRouter } from './documents/documents.router.ts';
import { ApiError, OAuthError } from './errors.ts';
import { BODY_LIMITS, limitBody, payloadTooLarge } from './http/body-limit.ts';
import { corsPreflights } from './http/cors.ts';
import type { AppEnv } from './http/env.ts';
import { apiErrorResponse, tokenErrorResponse } from './http/errors.ts';
import { opsRouter } from './http/ops.router.ts';
import { observe, requestContext } from './http/request-context.ts';
import { requestId } from './http/request-id.ts';
import { identityPaths } from './identity/paths.ts';
import { jwksRoutes } from './keys/jwks.router.ts';
import { clientRegistry } from './oauth/client.store.ts';
import { oauthRouter } from './oauth/oauth.router.ts';
import { tokenEndpoint } from './oauth/token-endpoint.ts';
import { discoveryRoutes } from './oidc/discovery.router.ts';
import { userinfoRoutes } from './oidc/userinfo.router.ts';
import { openApiRouter } from './openapi/openapi.router.ts';
import type { FetchHandler, PlainHandler, Routes } from './platform/listen.ts';
import { portalPaths } from './portal/paths.ts';
import { proofsRouter } from './proofs/proofs.router.ts';

/** Which surfaces a host serves. */
interface Surfaces {
  api: boolean;
  identity: boolean;
  portal: boolean;
}

/**
 * The hosts of `identity_url` and `developer_url` that differ from `base_url`'s, with the surfaces
 * each serves; empty when both live on the base host.
 */
export function ownSurfaceHosts(server: AppContext['config']['server']): Map<string, Surfaces> {
  const hosts = new Map<string, Surfaces>();
  for (const [url, surface] of [
    [server.identity_url, 'identity'],
    [server.developer_url, 'portal'],
  ] as const) {
    if (!surfaceMount(server, url).ownHost) continue;
    const host = new URL(url).host;
    const s = hosts.get(host) ?? { api: false, identity: false, portal: false };
    s[surface] = true;
    hosts.set(host, s);
  }
  return hosts;
}

/** The Host a request was sent to, as the URL parser spells it (lower case, default port dropped). */
const requestHost = (req: Request) => new URL(req.url).host;

/**
 * One app for the three surfaces. Each surface is a sub-app with its own error shape: the API's
 * `{ error: { code, message, requestId } }` (the token endpoint sets its own), HTML pages for the
 * identity experience and the developer portal. A surface whose URL has a host of its own is served on
 * that host only, and that host serves nothing else but the operations endpoints (docs/reference.md,
 * "Surface hosts").
 */
export function createApp(ctx: AppContext, plain: Routes = plainRoutes(ctx)) {
  registerSecurityEvents(ctx.metrics);
  const own = ownSurfaceHosts(ctx.config.server);
  if (!own.size) return surfacesApp(ctx, plain, { api: true, identity: true, portal: true });
  const byHost = new Map([...own].map(([host, s]) => [host, surfacesApp(ctx, plain, s)]));
  const elsewhere = surfacesApp(ctx, plain, {
    api: true,
    identity: ![...own.values()].some((s) => s.identity),
    portal: ![...own.values()].some((s) => s.portal),
  });
  const app = new Hono<AppEnv>();
  app.all('*', (c) => (byHost.get(requestHost(c.req.raw)) ?? elsewhere).fetch(c.req.raw, c.env));
  return app;
}

/** The endpoints a browser application may call, with their methods (their CORS is gated per client). */
const CORS_PATHS = {
  '/v1/oauth/token': ['POST'],
  '/v1/oauth/revoke': ['POST'],
  '/v1/userinfo': ['GET', 'POST'],
  '/v1/userinfo/identity-documents': ['GET'],
  '/v1/userinfo/identity-documents/:documentReference': ['GET'],
  '/v1/userinfo/identity-documents/:documentReference/proof': ['GET'],
} as const;

/** The web origins an application environment registered (for CORS on the bearer endpoints). */
const webOriginsIn = (ctx: AppContext) => (environmentId: string) =>
  clientRegistry(ctx).webOrigins(environmentId);

/**
 * The API routes that do the middleware's steps themselves, served ahead of it (and ahead of hono
 * altogether by Bun's listener): the token endpoint (token-endpoint.ts), UserInfo (userinfo.router.ts),
 * discovery and the JWKS (public-document.ts).
 */
const plainRoutes = (ctx: AppContext): Routes => ({
  '/v1/oauth/token': { POST: tokenEndpoint(ctx) },
  ...userinfoRoutes(ctx, webOriginsIn(ctx)),
  ...discoveryRoutes(ctx),
  ...jwksRoutes(ctx),
});

function surfacesApp(ctx: AppContext, plain: Routes, serves: Surfaces) {
  const app = new Hono<AppEnv>();
  if (serves.api)
    for (const [path, methods] of Object.entries(plain))
      for (const [method, handler] of Object.entries(methods) as [string, PlainHandler][])
        app.on(method, path, (c) => handler(c.req.raw, c.env));
  const { server } = ctx.config;
  if (serves.identity || serves.portal) {
    // The pages are loaded with the first request for one (docs/architecture.md#memory).
    let pages: Promise<Hono<AppEnv>> | undefined;
    const isIdentityPage = identityPaths(surfaceMount(server, server.identity_url));
    const isPortalPage = portalPaths(surfaceMount(server, server.developer_url));
    const isPage = (path: string) =>
      (serves.identity && isIdentityPage(path)) || (serves.portal && isPortalPage(path));
    app.use(async (c, next) => {
      if (!isPage(c.req.path)) return next();
      pages ??= pagesApp(ctx, serves);
      return (await pages).fetch(c.req.raw, c.env);
    });
  }
  perRequest(app, ctx);
  // The pages this host serves never reach this app: they apply their own limits.
  app.use(apiBodyLimit());

  app.route('/', opsRouter(ctx));
  if (serves.api) {
    // Ahead of the routers and their rate limits (see cors.ts).
    app.route(
      '/',
      corsPreflights(CORS_PATHS, (origin) => clientRegistry(ctx).originRegistered(origin)),
    );
    app.route('/', openApiRouter(ctx));
    app.route('/', oauthRouter(ctx));
    const webOriginsOf = webOriginsIn(ctx);
    app.route('/', documentsRouter(ctx, webOriginsOf));
    app.route('/', proofsRouter(ctx, webOriginsOf));
    app.route('/', capabilitiesRouter(ctx));
    app.route('/', webhooksRouter(ctx));
    app.route('/', applicationsRouter(ctx));
  }
  return answerTheRest(app);
}

/** The identity experience and the portal, as far as this host serves them, behind the same middleware. */
async function pagesApp(ctx: AppContext, serves: Surfaces) {
  const [{ identityRouter }, { portalRouter }] = await Promise.all([
    import('./identity/identity.router.tsx'),
    import('./portal/portal.router.tsx'),
  ]);
  const identityPath = surfacePath(ctx.config.server.identity_url);
  const developerPath = surfacePath(ctx.config.server.developer_url);
  const app = new Hono<AppEnv>();
  perRequest(app, ctx);
  const mounts: [string, () => void][] = [];
  if (serves.identity) mounts.push([identityPath, () => app.route(identityPath || '/', identityRouter(ctx))]);
  if (serves.portal) mounts.push([developerPath, () => app.route(developerPath || '/', portalRouter(ctx))]);
  // The longer path first: each surface ends with a catch-all 404 for its paths, and one mounted
  // at "/" (or at "/id" beside "/id/dev") would otherwise answer the other's pages.
  for (const [, mount] of mounts.sort((a, b) => b[0].length - a[0].length)) mount();
  return answerTheRest(app);
}

/** The routes of the identity experience and the portal, loaded (for tests that check every page). */
export async function pageRoutes(ctx: AppContext) {
  return (await pagesApp(ctx, { api: false, identity: true, portal: true })).routes;
}

/** What every request gets first: its id, its context, its metrics. */
function perRequest(app: Hono<AppEnv>, ctx: AppContext) {
  app.use(requestId());
  app.use(requestContext(ctx));
  app.use(observe(ctx));
  // Hono passes only Error instances to onError; anything else thrown is wrapped so it gets the same 500.
  app.use(async (_c, next) => {
    try {
      await next();
    } catch (e) {
      throw e instanceof Error ? e : new Error(String(e));
    }
  });
}

/** Unknown paths and errors no surface handled get the API's shape. */
function answerTheRest(app: Hono<AppEnv>) {
  app.notFound((c) => apiErrorResponse(new ApiError('NOT_FOUND', 'No such resource.', 404), c));
  app.onError((err, c) => apiErrorResponse(err, c));
  return app;
}

/**
 * The body limits of the API (docs/reference.md, "Body limits"); the pages of the identity experience
 * and the portal apply theirs in their own routers, so that their error handlers render the 413.
 */
function apiBodyLimit(): MiddlewareHandler<AppEnv> {
  const oauth = (path: string) => path.startsWith('/v1/oauth/');
  const limitOf = (path: string) => {
    if (path === '/v1/oauth/authorize') return BODY_LIMITS.hinted;
    if (oauth(path)) return BODY_LIMITS.oauth;
    return path.startsWith('/v1/developer/') ? BODY_LIMITS.developerApi : BODY_LIMITS.other;
  };
  const limit = limitBody<Context<AppEnv>>(
    (c) => limitOf(c.req.path),
    (c) => {
      if (!oauth(c.req.path)) throw payloadTooLarge();
      return tokenErrorResponse(new OAuthError('invalid_request', 'The request body is too large.', 413), c);
    },
  );
  return limit;
}

/**
 * What the listener serves: the app, and the routes it may answer before the app sees the request
 * (Bun's listener matches them natively; elsewhere the app serves them, with the same handlers).
 */
export function createHandlers(
  ctx: AppContext,
  extend?: (app: ReturnType<typeof createApp>) => void,
): { fetch: FetchHandler; routes: Routes } {
  const plain = plainRoutes(ctx);
  const app = createApp(ctx, plain);
  extend?.(app);
  const own = ownSurfaceHosts(ctx.config.server);
  // A surface's own host does not serve the API: the app answers it there (a 404).
  const apiHostsOnly = (handler: PlainHandler): PlainHandler =>
    own.size
      ? async (req, conn) => (own.has(requestHost(req)) ? app.fetch(req, conn) : handler(req, conn))
      : handler;
  const routes: Routes = {};
  for (const [path, methods] of Object.entries(plain))
    routes[path] = Object.fromEntries(
      Object.entries(methods).map(([method, handler]) => [method, apiHostsOnly(handler)]),
    );
  return { fetch: (req, conn) => app.fetch(req, conn), routes };
}
