import type { AppContext } from '../context.ts';
import type { PlainHandler } from '../platform/listen.ts';
import { PUBLIC_CORS_HEADERS } from './cors.ts';
import { internalErrorResponse } from './errors.ts';
import { recordFinished } from './request-context.ts';

/**
 * A public JSON document (discovery, JWKS) as a plain fetch handler, which the listener serves ahead of
 * hono as it does the token endpoint: hono's routing, context and middleware cost as much as the
 * document itself. It does what the middleware would: a request id, metrics, the API's 500. What it
 * skips is safe to skip: the body limit (a GET body is never read), the client address (these
 * documents have no rate limit) and the security headers (those are for pages).
 */
export function publicDocument(
  ctx: AppContext,
  route: string,
  body: () => string | Promise<string>,
  cacheControl: string,
): PlainHandler {
  // No promise while the body is at hand: the listener answers a plain Response without awaiting it.
  return function document(req) {
    const start = performance.now();
    const requestId = crypto.randomUUID();
    const finish = (res: Response) => {
      recordFinished(ctx, { route, method: req.method, status: res.status, requestId, start });
      return res;
    };
    const ok = (text: string) =>
      finish(
        new Response(text, {
          headers: {
            'Content-Type': 'application/json',
            'Cache-Control': cacheControl,
            'X-Request-Id': requestId,
            ...PUBLIC_CORS_HEADERS,
          },
        }),
      );
    const failed = (e: unknown) => finish(internalErrorResponse(e, ctx.log, requestId));
    try {
      const text = body();
      return typeof text === 'string' ? ok(text) : text.then(ok, failed);
    } catch (e) {
      return failed(e);
    }
  };
}
