import type { MiddlewareHandler } from 'hono';
import type { AppContext } from '../context.ts';
import { clientAddress } from './client-address.ts';
import type { AppEnv } from './env.ts';

/**
 * Puts the request's context (the AppContext with the request id, for the security events emitted while
 * serving it), the request logger and the client address on every request.
 */
export function requestContext(ctx: AppContext): MiddlewareHandler<AppEnv> {
  return async function requestContext(c, next) {
    c.set('ctx', { ...ctx, requestId: c.get('requestId') });
    c.set('log', ctx.log);
    c.set(
      'clientIp',
      clientAddress(ctx.config, c.env?.ip, (name) => c.req.header(name)),
    );
    await next();
  };
}

export interface FinishedRequest {
  /** The route pattern, never the raw path: it may carry codes. */
  route: string;
  method: string;
  status: number;
  requestId: string | undefined;
  /** performance.now() when it arrived. */
  start: number;
}

/** Counts a finished request and its latency by route pattern. */
export function recordFinished(ctx: AppContext, r: FinishedRequest): void {
  const seconds = (performance.now() - r.start) / 1000;
  ctx.metrics.finished(r.route, r.method, r.status, seconds);
  ctx.log.debug('request', {
    requestId: r.requestId,
    method: r.method,
    route: r.route,
    status: r.status,
    ms: Math.round(seconds * 1000),
  });
}

export function observe(ctx: AppContext): MiddlewareHandler<AppEnv> {
  return async function observe(c, next) {
    const start = performance.now();
    await next();
    recordFinished(ctx, {
      route: c.req.routePath || 'unmatched',
      method: c.req.method,
      status: c.res.status,
      requestId: c.get('requestId'),
      start,
    });
  };
}
