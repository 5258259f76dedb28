import type { MiddlewareHandler } from 'hono';

/**
 * A page address typed or linked with a trailing slash (`/developer/`, `/identity/account/`) is sent
 * permanently to the address without it, query kept. Relative and with exactly one leading slash, so
 * a path such as `//evil.example/` can never become a redirect to another host.
 */
export function trimTrailingSlash(): MiddlewareHandler {
  return async function trimTrailingSlash(c, next) {
    const path = c.req.path;
    if ((c.req.method === 'GET' || c.req.method === 'HEAD') && path.length > 1 && path.endsWith('/')) {
      const trimmed = `/${path.replace(/^\/+/, '').replace(/\/+$/, '')}`;
      return c.redirect(trimmed + new URL(c.req.url).search, 308);
    }
    await next();
  };
}
