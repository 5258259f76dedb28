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

/**
 * The body as text, or undefined if it is larger than `maxSize`, for a handler served without hono
 * (the token endpoint). As above: a declared length is judged as declared (the server holds the body
 * to it), and a chunked body is counted as it streams and not read past the limit.
 */
export async function readTextWithin(req: Request, maxSize: number): Promise<string | undefined> {
  const length = req.headers.get('content-length');
  if (length !== null && !req.headers.has('transfer-encoding'))
    return Number.parseInt(length, 10) > maxSize ? undefined : req.text();
  if (!req.body) return '';
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxSize) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
