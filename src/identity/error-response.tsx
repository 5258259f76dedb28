/** @jsxImportSource hono/jsx */
import type { Context } from 'hono';
import { ApiError } from '../errors.ts';
import type { AppEnv } from '../http/env.ts';
import type { SecurityHeadersEnv } from '../http/security-headers.ts';
import { csrfToken, type SessionEnv } from '../web/session.middleware.ts';
import { messagesFor } from './messages/index.ts';
import { ErrorPage } from './pages/error.page.tsx';

type C = Context<AppEnv & SessionEnv & SecurityHeadersEnv>;

/** The identity experience's error page (sign-in flow and account page alike) with its request id. */
export function errorResponse(c: C, status: number, message: string) {
  let csrf = '';
  try {
    csrf = csrfToken(c);
  } catch {
    // The session middleware itself failed; the error page has no form anyway.
  }
  return c.html(
    <ErrorPage
      m={messagesFor()}
      nonce={c.get('cspNonce') ?? ''}
      csrf={csrf}
      display="page"
      sandbox={false}
      message={message}
      requestId={c.get('requestId') ?? ''}
    />,
    status as 400,
  );
}

/**
 * The identity pages' answer to an error their router did not map itself: a refusal (4xx) shows its
 * message, a busy server (the password hashing pool, crypto/password.ts) answers 503 with Retry-After,
 * and anything else is logged and answered 500.
 */
export function identityErrorResponse(c: C, err: Error) {
  const m = messagesFor();
  const busy = err instanceof ApiError && err.code === 'SERVICE_BUSY';
  if (err instanceof ApiError && (err.status < 500 || busy)) {
    for (const [name, value] of Object.entries(err.headers)) c.header(name, value);
    const message = busy ? m.errorBusy(Number(err.headers['Retry-After'] ?? 1)) : err.message;
    return errorResponse(c, err.status, message);
  }
  logUnhandled(c, err);
  return errorResponse(c, 500, m.errorInternal);
}

/** Logs an error no rule expected, before it is answered with a 500 that says nothing of it. */
export function logUnhandled(c: C, err: unknown) {
  c.get('log')?.error('unhandled error', {
    requestId: c.get('requestId'),
    error: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
    stack: err instanceof Error ? err.stack : undefined,
  });
}
