import type { Context, MiddlewareHandler } from 'hono';
import type { AppContext } from '../context.ts';
import type { AppEnv } from './env.ts';

/** Puts the AppContext, the request logger and the client address on the request. */
export function setRequestContext(ctx: AppContext, c: Context<AppEnv>): void {
  c.set('ctx', ctx);
  c.set('log', ctx.log);
  const socketIp = c.env?.ip ?? 'unknown';
  let ip = socketIp;
  const proxyHeader = ctx.config.server.trust_proxy;
  if (proxyHeader) {
    // The nearest hop is the one our proxy appended; anything before it is client-supplied.
    const hops = (c.req.header(proxyHeader) ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    ip = hops.at(-1) ?? socketIp;
  }
  c.set('clientIp', ip);
}

export function requestContext(ctx: AppContext): MiddlewareHandler<AppEnv> {
  return async function requestContext(c, next) {
    setRequestContext(ctx, c);
    await next();
  };
}

/** Counts a finished request and its latency by route pattern (never the raw path: it may carry codes). */
export function recordRequest(ctx: AppContext, c: Context<AppEnv>, route: string, start: number): void {
  const seconds = (performance.now() - start) / 1000;
  ctx.metrics.requests.inc({ route, method: c.req.method, status: String(c.res.status) });
  ctx.metrics.latency.observe({ route }, seconds);
  ctx.log.debug('request', {
    requestId: c.get('requestId'),
    method: c.req.method,
    route,
    status: c.res.status,
    ms: Math.round(seconds * 1000),
  });
}

export function observe(ctx: AppContext): MiddlewareHandler<AppEnv> {
  return async function observe(c, next) {
    const start = performance.now();
    await next();
    recordRequest(ctx, c, c.req.routePath || 'unmatched', start);
  };
}
