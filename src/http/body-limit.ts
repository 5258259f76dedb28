import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit as streamingBodyLimit } from 'hono/body-limit';

/**
 * hono's bodyLimit without its cost on the common path: a request that declares its length and is
 * not chunked is judged by Content-Length alone. hono's reads `req.body` first, and under Bun that
 * getter turns the already-buffered body into a stream that every later read then goes through; on
 * the token endpoint that was a noticeable part of each exchange. Chunked bodies are still counted
 * as they stream, by hono's.
 */
export function bodyLimit(opts: { maxSize: number; onError: (c: Context) => Response }): MiddlewareHandler {
  const streaming = streamingBodyLimit(opts);
  return async function bodyLimit(c, next) {
    const length = c.req.header('content-length');
    if (length === undefined || c.req.header('transfer-encoding') !== undefined) return streaming(c, next);
    if (Number.parseInt(length, 10) > opts.maxSize) return opts.onError(c);
    await next();
  };
}
