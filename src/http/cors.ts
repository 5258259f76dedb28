import { Hono } from 'hono';
import type { AppEnv } from './env.ts';

/**
 * Cross-origin access for browser applications (docs/reference.md, "CORS"). Discovery and JWKS are
 * public documents: any page may read them. The token, revocation, UserInfo and documents endpoints
 * answer a page only if its origin is one its client registered; the actual request, not the
 * preflight, is what is gated. Credentials mode is never allowed: these endpoints take no cookies.
 */

/** How long a browser may reuse a preflight answer (Chromium caps it at 2 hours). */
export const CORS_MAX_AGE_SECONDS = 600;

/** Discovery and JWKS. */
export const PUBLIC_CORS_HEADERS = { 'Access-Control-Allow-Origin': '*' } as const;

/** Request headers a page may send: credentials and the body's type. */
const ALLOWED_HEADERS = 'Authorization, Content-Type, Accept';
/** Response headers a page may read besides the safelisted ones. */
const EXPOSED_HEADERS =
  'WWW-Authenticate, Retry-After, X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset';

/** A client's allowed web origins, looked up only when a request carries a cross-origin Origin. */
export type WebOriginsOf = (environmentId: string) => readonly string[];

/** What a gated endpoint adds to its response, and whether it may go on with the request. */
export interface CorsDecision {
  allowed: boolean;
  headers: Record<string, string>;
}

/**
 * CORS for a request made on behalf of one client (the token and revocation endpoints: the client
 * the body or Basic credentials name; UserInfo and documents: the client the token was issued to).
 * A request without an Origin header (a server) or from Verity's own origin is not cross-origin and
 * costs no lookup. A cross-origin one gets `Access-Control-Allow-Origin` only for an origin the client
 * registered; any other (`null` included) is not allowed, and the caller stops there.
 */
export function corsForClient(
  req: Request,
  ownOrigin: string,
  allowedOrigins: () => readonly string[],
): CorsDecision {
  const origin = req.headers.get('origin');
  if (origin === null || origin === ownOrigin) return { allowed: true, headers: { Vary: 'Origin' } };
  if (!allowedOrigins().includes(origin)) return { allowed: false, headers: { Vary: 'Origin' } };
  return {
    allowed: true,
    headers: {
      Vary: 'Origin',
      'Access-Control-Allow-Origin': origin,
      'Access-Control-Expose-Headers': EXPOSED_HEADERS,
    },
  };
}

/**
 * Preflights (`OPTIONS`) of the gated endpoints, each path with the methods it takes. A preflight
 * names no client (no body, no Authorization header), so it is answered 204 with the methods, headers
 * and Max-Age for every origin, and `Access-Control-Allow-Origin` only for an origin some application
 * environment registered: a page nobody registered is stopped before it sends anything. Mounted ahead
 * of the rate limits: a browser's preflight is not a second request of the client's.
 */
export function corsPreflights(
  paths: Record<string, readonly string[]>,
  originRegistered: (origin: string) => boolean,
) {
  const app = new Hono<AppEnv>();
  for (const [path, methods] of Object.entries(paths))
    app.options(path, (c) => {
      const origin = c.req.header('origin');
      const headers: Record<string, string> = {
        Vary: 'Origin',
        'Access-Control-Allow-Methods': [...methods, 'OPTIONS'].join(', '),
        'Access-Control-Allow-Headers': ALLOWED_HEADERS,
        'Access-Control-Max-Age': String(CORS_MAX_AGE_SECONDS),
      };
      if (origin !== undefined && originRegistered(origin)) headers['Access-Control-Allow-Origin'] = origin;
      return c.body(null, 204, headers);
    });
  return app;
}
