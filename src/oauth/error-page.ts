import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import { randomToken } from '../crypto/tokens.ts';

export interface ErrorPage {
  body: string;
  headers: Record<string, string>;
}

/** A page served at authorize itself, in the identity experience's style: no script, form or link. */
async function page(title: string, main: HtmlEscapedString | Promise<HtmlEscapedString>): Promise<ErrorPage> {
  const nonce = randomToken('', 16);
  const body = await html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style nonce="${nonce}">
body{font-family:system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;color:#1a1a1a;line-height:1.5}
h1{font-size:1.4rem}code{background:#f2f2f2;padding:.1rem .3rem;border-radius:3px;word-break:break-all}
</style>
</head>
<body>
<main>
${main}
</main>
</body>
</html>`;
  return {
    body: String(body),
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': `default-src 'none'; style-src 'nonce-${nonce}'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'`,
      'Referrer-Policy': 'no-referrer',
      'X-Content-Type-Options': 'nosniff',
      'X-Frame-Options': 'DENY',
      'Cache-Control': 'no-store',
    },
  };
}

/**
 * The page shown when an authorize request cannot be sent back to the application, because its client
 * or redirect URI could not be verified (RFC 6749 §4.1.2.1): redirecting would make Verity an open
 * redirector. The request id lets the person or the developer find the log line.
 */
export function authorizeErrorPage(
  error: string,
  description: string,
  requestId: string,
): Promise<ErrorPage> {
  return page(
    'Sign-in request not accepted',
    html`<h1>This sign-in request cannot continue</h1>
<p>The application that sent you here made a request Verity cannot accept, so you have not been sent back to it.</p>
<p><strong>${error}</strong>: ${description}</p>
<p>If you contact the application's support, quote this request id: <code>${requestId}</code></p>`,
  );
}

/** The page a browser gets when its address is over the authorize limit (the caller adds Retry-After). */
export function rateLimitedPage(retryAfter: number, requestId: string): Promise<ErrorPage> {
  const minutes = Math.ceil(retryAfter / 60);
  const wait = retryAfter < 60 ? `${retryAfter} seconds` : minutes === 1 ? 'a minute' : `${minutes} minutes`;
  return page(
    'Too many sign-in requests',
    html`<h1>Too many sign-in requests</h1>
<p>Too many sign-in requests came from your network in a short time. Wait ${wait}, then go back to the application and try again.</p>
<p>If you contact the application's support, quote this request id: <code>${requestId}</code></p>`,
  );
}
