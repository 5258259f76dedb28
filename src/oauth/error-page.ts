import { html } from 'hono/html';
import { randomToken } from '../crypto/tokens.ts';

/**
 * The page shown when an authorize request cannot be sent back to the application, because its client
 * or redirect URI could not be verified (RFC 6749 §4.1.2.1): redirecting would make Verity an open
 * redirector. The request id lets the person or the developer find the log line.
 */
export async function authorizeErrorPage(
  error: string,
  description: string,
  requestId: string,
): Promise<{ body: string; headers: Record<string, string> }> {
  const nonce = randomToken('', 16);
  const body = await html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign-in request not accepted</title>
<style nonce="${nonce}">
body{font-family:system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;color:#1a1a1a;line-height:1.5}
h1{font-size:1.4rem}code{background:#f2f2f2;padding:.1rem .3rem;border-radius:3px;word-break:break-all}
</style>
</head>
<body>
<main>
<h1>This sign-in request cannot continue</h1>
<p>The application that sent you here made a request Verity cannot accept, so you have not been sent back to it.</p>
<p><strong>${error}</strong>: ${description}</p>
<p>If you contact the application's support, quote this request id: <code>${requestId}</code></p>
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
