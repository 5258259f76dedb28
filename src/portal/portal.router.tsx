/** @jsxImportSource hono/jsx */
import { Hono, type MiddlewareHandler } from 'hono';
import { surfaceMount } from '../config/surfaces.ts';
import type { AppContext } from '../context.ts';
import { ApiError, NotFoundError, ValidationError, validationMessage } from '../errors.ts';
import { pageBodyLimit } from '../http/body-limit.ts';
import { pageRateLimit } from '../http/rate-limit.ts';
import { type SecurityHeadersEnv, securityHeaders } from '../http/security-headers.ts';
import { logUnhandled } from '../identity/error-response.tsx';
import { csrfProtection, sessionMiddleware } from '../web/session.middleware.ts';
import { trimTrailingSlash } from '../web/trailing-slash.middleware.ts';
import { appsRoutes } from './apps.router.tsx';
import { authRoutes } from './auth.router.tsx';
import { consentsRoutes } from './consents.router.tsx';
import { createPortal, type PC, type PortalEnv } from './env.ts';
import { keysRoutes } from './keys.router.tsx';
import { portalMessages } from './messages/index.ts';
import { MessagePage } from './pages/message.page.tsx';
import { PRIVATE, portalPaths } from './paths.ts';
import { webhooksRoutes } from './webhooks.router.tsx';

export const DEVELOPER_COOKIE = '__Host-verity_dev';

/** The developer portal, mounted at the path of `[server] developer_url`. */
export function portalRouter(ctx: AppContext) {
  const app = new Hono<PortalEnv & SecurityHeadersEnv>();
  const { server } = ctx.config;
  const mount = surfaceMount(server, server.developer_url);
  const base = mount.path;
  const portal = createPortal(ctx, base);

  // One registration each (a request must not be counted or checked twice), limited to portal paths.
  const inPortal = portalPaths(mount);
  const isPrivate = (path: string) => PRIVATE.includes(path.slice(base.length).split('/')[1] ?? '');
  const only =
    (mw: unknown): MiddlewareHandler<PortalEnv> =>
    (c, next) =>
      inPortal(c.req.path) ? (mw as MiddlewareHandler<PortalEnv>)(c, next) : next();
  app.use('*', only(trimTrailingSlash()));
  app.use('*', only(securityHeaders()));
  app.use('*', only(pageRateLimit(ctx)));
  app.use('*', only(pageBodyLimit()));
  app.use('*', only(sessionMiddleware(ctx, { kind: 'developer', cookieName: DEVELOPER_COOKIE })));
  app.use('*', only(csrfProtection([ctx.config.server.developer_url])));
  // Pages behind sign-in: without a live session the browser goes to the sign-in page.
  app.use('*', async (c, next) => {
    if (isPrivate(c.req.path) && !portal.developer(c)) return c.redirect(`${base}/signin`, 303);
    await next();
  });

  app.route('/', authRoutes(portal));
  app.route('/', appsRoutes(portal));
  app.route('/', keysRoutes(portal));
  app.route('/', webhooksRoutes(portal));
  app.route('/', consentsRoutes(portal));
  // Any other path of the portal's (paths.ts): its 404 page, not the API's JSON.
  app.all('/*', () => {
    throw new NotFoundError();
  });

  const page = (c: PC, status: number, title: string, message: string) => {
    let props: ReturnType<typeof portal.props>;
    try {
      props = portal.props(c);
    } catch {
      // The session itself failed: a page without navigation or forms.
      props = { m: portalMessages(), nonce: c.get('cspNonce') ?? '', csrf: '', base };
    }
    return c.html(
      <MessagePage {...props} title={title} message={message} requestId={c.get('requestId')} />,
      status as 400,
    );
  };

  app.onError((err, c) => {
    const m = portalMessages();
    if (err instanceof NotFoundError) return page(c, 404, m.notFoundTitle, m.notFound);
    if (err instanceof ApiError && err.code === 'CSRF_FAILED')
      return page(c, 403, m.forbiddenTitle, m.errorCsrf);
    // A rule a route's own form check let through: refused in the page's shape, not a 500.
    if (err instanceof ValidationError) return page(c, 400, m.errorTitle, validationMessage(err));
    if (err instanceof ApiError && (err.status < 500 || err.status === 503)) {
      for (const [name, value] of Object.entries(err.headers)) c.header(name, value);
      return page(c, err.status, m.errorTitle, err.message);
    }
    logUnhandled(c, err);
    return page(c, 500, m.errorTitle, m.errorInternal);
  });

  return app;
}
