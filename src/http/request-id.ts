import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './env.ts';

/**
 * A fresh id for every request, in `X-Request-Id`. A client-supplied id is never adopted: it would let
 * callers choose the ids that appear in our logs and error pages, or collide with other requests.
 */
export function requestId(): MiddlewareHandler<AppEnv> {
  return async function requestId(c, next) {
    const id = crypto.randomUUID();
    c.set('requestId', id);
    c.header('X-Request-Id', id);
    await next();
  };
}
