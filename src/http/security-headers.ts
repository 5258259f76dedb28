import type { MiddlewareHandler } from 'hono';
import { base64url } from '../crypto/encoding.ts';
import type { AppEnv } from './env.ts';

/** What pages read and write: the per-response nonce and extra `form-action` sources. */
export interface SecurityHeadersEnv {
  Variables: {
    cspNonce: string;
    /** Sources added to `form-action`, e.g. the client's callback origin a form may redirect to. */
    cspFormAction: string[];
  };
}

/** A CSP source that allows a form on our page to end at `uri` (Chrome enforces form-action on redirects). */
export function formActionSource(uri: string): string | undefined {
  if (!URL.canParse(uri)) return undefined;
  const u = new URL(uri);
  if (u.protocol === 'http:' || u.protocol === 'https:') return u.origin;
  // Custom schemes of native apps (RFC 8252): a scheme source.
  return /^[a-z][a-z0-9+.-]*:$/i.test(u.protocol) ? u.protocol : undefined;
}

/**
 * Headers for server-rendered pages: a nonce-based CSP (a fresh nonce per response, exposed as
 * `cspNonce` for inline `<style>` and `<script>`), no framing, no referrer (URLs carry request ids),
 * no sniffing and no caching (pages carry CSRF tokens and personal data). No Cross-Origin-Opener-Policy:
 * a popup flow ends on the client's callback page, which must still reach its `window.opener`.
 */
export function securityHeaders(): MiddlewareHandler<AppEnv & SecurityHeadersEnv> {
  return async function securityHeaders(c, next) {
    // Set once per response: a second nonce would not be the one the page was drawn with.
    if (c.get('cspNonce')) return next();
    const nonce = base64url(crypto.getRandomValues(new Uint8Array(18)));
    c.set('cspNonce', nonce);
    c.set('cspFormAction', []);
    await next();
    const formAction = ["'self'", ...new Set(c.get('cspFormAction'))].join(' ');
    const csp = [
      "default-src 'none'",
      `script-src 'nonce-${nonce}'`,
      `style-src 'nonce-${nonce}'`,
      "img-src 'self' data: blob:",
      "media-src 'self' blob:",
      "connect-src 'self'",
      `form-action ${formAction}`,
      "frame-ancestors 'none'",
      "base-uri 'none'",
    ].join('; ');
    c.res.headers.set('Content-Security-Policy', csp);
    c.res.headers.set('Referrer-Policy', 'no-referrer');
    c.res.headers.set('X-Content-Type-Options', 'nosniff');
    c.res.headers.set('X-Frame-Options', 'DENY');
    c.res.headers.set('Cache-Control', 'no-store');
  };
}
