import type { Context, MiddlewareHandler } from 'hono';
import { concatBytes } from '../crypto/encoding.ts';
import { ApiError } from '../errors.ts';

const KiB = 1024;
const MiB = 1024 * KiB;

/**
 * The most a request body may hold, by surface: the one table every runtime enforces in the app
 * (a body is counted as it streams and refused past its limit, never read whole). Camera frames are
 * the face step's form: up to 5 frames of ~1.1 MB each (docs/face-provider.md), URL-encoded.
 */
export const BODY_LIMITS = {
  oauth: 64 * KiB,
  pages: 64 * KiB,
  /** Authorize and logout by POST: an `id_token_hint` of up to 160 KiB (src/oidc/id-token-hint.ts). */
  hinted: 192 * KiB,
  cameraFrames: 8 * MiB,
  developerApi: 256 * KiB,
  other: 1 * MiB,
} as const;

/**
 * A chunked body, or undefined if it is larger than `maxSize`: counted as it streams, and the stream
 * cancelled once the count passes the limit.
 */
async function readWithin(req: Request, maxSize: number): Promise<Uint8Array<ArrayBuffer> | undefined> {
  if (!req.body) return new Uint8Array(0);
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxSize) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  return concatBytes(chunks);
}

/** Content-Length when it frames the body (not with Transfer-Encoding, which overrides it). */
function declaredLength(req: Request): number | undefined {
  const length = req.headers.get('content-length');
  if (length === null || req.headers.has('transfer-encoding')) return undefined;
  return Number.parseInt(length, 10);
}

/**
 * The body as text, or undefined if it is larger than `maxSize`, for a handler served without hono
 * (the token endpoint). A body within its declared length is read as is, without turning the
 * buffered body into a stream, which under Bun every later read would go through.
 */
export async function readTextWithin(req: Request, maxSize: number): Promise<string | undefined> {
  const declared = declaredLength(req);
  if (declared !== undefined) return declared > maxSize ? undefined : req.text();
  const body = await readWithin(req, maxSize);
  return body && new TextDecoder().decode(body);
}

/**
 * Middleware holding a request's body to `limit(c)` bytes; over it, `tooLarge` answers (or throws an
 * error for the surface's own error handler). A chunked body is read here, up to the limit, and
 * handed on as a buffer.
 */
export function limitBody<C extends Context>(
  limit: (c: C) => number | Promise<number>,
  tooLarge: (c: C) => Response | Promise<Response>,
): MiddlewareHandler {
  return async function limitBody(c, next) {
    const req = c.req.raw;
    if (!req.body) return next();
    const maxSize = await limit(c as C);
    const declared = declaredLength(req);
    if (declared !== undefined) return declared > maxSize ? tooLarge(c as C) : next();
    const body = await readWithin(req, maxSize);
    if (body === undefined) return tooLarge(c as C);
    c.req.raw = new Request(req, { body });
    return next();
  };
}

export const payloadTooLarge = () => new ApiError('PAYLOAD_TOO_LARGE', 'The request body is too large.', 413);

/** For pages: over the limit, an error that the surface's own handler renders in its layout. */
export const pageBodyLimit = <C extends Context>(
  limit: (c: C) => number | Promise<number> = () => BODY_LIMITS.pages,
) =>
  limitBody(limit, () => {
    throw payloadTooLarge();
  });
