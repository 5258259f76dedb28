import type { MiddlewareHandler } from 'hono';
import type { AppContext } from '../context.ts';
import type { AppEnv } from './env.ts';

/** Puts the AppContext, the request logger and the client address on every request. */
export function requestContext(ctx: AppContext): MiddlewareHandler<AppEnv> {
  const proxyHeader = ctx.config.server.trust_proxy;
  return async function requestContext(c, next) {
    c.set('ctx', ctx);
    c.set('log', ctx.log);
    const socketIp = c.env?.ip ?? 'unknown';
    let ip = socketIp;
    if (proxyHeader) {
      // The nearest hop is the one our proxy appended; anything before it is client-supplied.
      const hops = (c.req.header(proxyHeader) ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      ip = hops.at(-1) ?? socketIp;
    }
    c.set('clientIp', ip);
    await next();
  };
}

/** Request count and latency by route pattern (never the raw path: it may carry codes). */
export function observe(ctx: AppContext): MiddlewareHandler<AppEnv> {
  return async function observe(c, next) {
    const start = performance.now();
    await next();
    const seconds = (performance.now() - start) / 1000;
    const route = c.req.routePath || 'unmatched';
    ctx.metrics.requests.inc({ route, method: c.req.method, status: String(c.res.status) });
    ctx.metrics.latency.observe({ route }, seconds);
    ctx.log.debug('request', {
      requestId: c.get('requestId'),
      method: c.req.method,
      route,
      status: c.res.status,
      ms: Math.round(seconds * 1000),
    });
  };
}
