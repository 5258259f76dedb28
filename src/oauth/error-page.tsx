/** @jsxImportSource hono/jsx */
import type { Child } from 'hono/jsx';
import { randomToken } from '../crypto/tokens.ts';
import { PersonFrame } from '../web/layout.tsx';

export interface ErrorPage {
  body: string;
  headers: Record<string, string>;
}

/**
 * A page served at authorize itself, in the identity experience's layout: no script, form or link out
 * (the person has not been sent anywhere yet, and must not be from here).
 */
async function page(title: string, main: Child): Promise<ErrorPage> {
  const nonce = randomToken('', 16);
  const frame = (
    <PersonFrame
      lang="en"
      productName="Verity"
      skipToContent="Skip to content"
      title={title}
      nonce={nonce}
      display="page"
    >
      {main}
    </PersonFrame>
  );
  return {
    body: `<!doctype html>${await frame.toString()}`,
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': `default-src 'none'; style-src 'nonce-${nonce}'; img-src data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'`,
      'Referrer-Policy': 'no-referrer',
      'X-Content-Type-Options': 'nosniff',
      'X-Frame-Options': 'DENY',
      'Cache-Control': 'no-store',
    },
  };
}

/** The request id, so the person or the developer can find the log line. */
const RequestId = ({ id }: { id: string }) => (
  <dl>
    <dt>Request ID</dt>
    <dd>
      <code>{id}</code>
    </dd>
  </dl>
);

/**
 * The page shown when an authorize request cannot be sent back to the application, because its client
 * or redirect URI could not be verified (RFC 6749 §4.1.2.1): redirecting would make Verity an open
 * redirector.
 */
export function authorizeErrorPage(
  error: string,
  description: string,
  requestId: string,
): Promise<ErrorPage> {
  return page(
    'Sign-in request not accepted',
    <>
      <h1>This sign-in request cannot continue</h1>
      <p>
        The application that sent you here made a request Verity cannot accept, so you have not been sent back
        to it.
      </p>
      <p role="alert">
        <strong>{error}</strong>: {description}
      </p>
      <p class="muted">If you contact the application's support, quote this request id.</p>
      <RequestId id={requestId} />
    </>,
  );
}

/** The page a browser gets when its address is over the authorize limit (the caller adds Retry-After). */
export function rateLimitedPage(retryAfter: number, requestId: string): Promise<ErrorPage> {
  const minutes = Math.ceil(retryAfter / 60);
  const wait = retryAfter < 60 ? `${retryAfter} seconds` : minutes === 1 ? 'a minute' : `${minutes} minutes`;
  return page(
    'Too many sign-in requests',
    <>
      <h1>Too many sign-in requests</h1>
      <p>
        Too many sign-in requests came from your network in a short time. Wait {wait}, then go back to the
        application and try again.
      </p>
      <p class="muted">If you contact the application's support, quote this request id.</p>
      <RequestId id={requestId} />
    </>,
  );
}
