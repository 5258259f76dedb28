import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { ApiError, NotFoundError, OAuthError, ValidationError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { AppEnv } from './env.ts';

/** An error as the API answers it: `{ error: { code, message, requestId, … } }`, status and headers. */
export interface ApiErrorAnswer {
  status: number;
  body: { error: Record<string, unknown> };
  headers: Record<string, string>;
}

/** The one place typed errors become the API's answers. */
export function apiErrorAnswer(err: unknown, log: Logger | undefined, requestId: string): ApiErrorAnswer {
  const answer = (
    code: string,
    message: string,
    status: number,
    extra?: Record<string, unknown>,
    headers: Record<string, string> = {},
  ) => ({ status, body: { error: { code, message, requestId, ...extra } }, headers });

  if (err instanceof ApiError) return answer(err.code, err.message, err.status, err.details, err.headers);
  if (err instanceof OAuthError)
    return answer(err.error, err.description, err.status, undefined, err.headers);
  if (err instanceof ValidationError)
    return answer(
      'VALIDATION_FAILED',
      err.message,
      400,
      err.fields.length ? { fields: err.fields } : undefined,
    );
  if (err instanceof NotFoundError) return answer('NOT_FOUND', err.message || 'Not found.', 404);
  if (err instanceof HTTPException && err.status < 500)
    return answer('INVALID_REQUEST', err.message, err.status);
  logInternal(err, log, requestId);
  return answer('INTERNAL', 'An internal error occurred.', 500);
}

export function apiErrorResponse(err: unknown, c: Context<AppEnv>): Response {
  const a = apiErrorAnswer(err, c.get('log'), c.get('requestId') ?? '');
  return c.json(a.body, a.status as ContentfulStatusCode, a.headers);
}

/**
 * The API's error without a framework, for the handlers served ahead of hono (see public-document.ts),
 * with the headers the handler had gathered (the error's own win).
 */
export function plainApiErrorResponse(
  err: unknown,
  log: Logger,
  requestId: string,
  headers: Record<string, string>,
): Response {
  const a = apiErrorAnswer(err, log, requestId);
  return Response.json(a.body, { status: a.status, headers: { ...headers, ...a.headers } });
}

export interface TokenError {
  status: number;
  body: { error: string; error_description: string };
  headers: Record<string, string>;
}

/**
 * The token endpoint's shape, `{ error, error_description }` (RFC 6749 §5.2), with the error's own
 * headers (`WWW-Authenticate`, `Retry-After`, …). Without a framework: the token endpoint is served
 * ahead of hono (see oauth/token-endpoint.ts).
 */
export function tokenError(err: unknown, log: Logger | undefined, requestId: string | undefined): TokenError {
  if (err instanceof OAuthError)
    return {
      status: err.status,
      body: { error: err.error, error_description: err.description },
      headers: err.headers,
    };
  if (err instanceof ApiError)
    return {
      status: err.status,
      body: { error: err.code, error_description: err.message },
      headers: err.headers,
    };
  logInternal(err, log, requestId);
  return {
    status: 500,
    body: { error: 'server_error', error_description: 'An internal error occurred.' },
    headers: {},
  };
}

export function tokenErrorResponse(err: unknown, c: Context<AppEnv>): Response {
  const t = tokenError(err, c.get('log'), c.get('requestId'));
  return c.json(t.body, t.status as ContentfulStatusCode, { ...t.headers, 'Cache-Control': 'no-store' });
}

function logInternal(err: unknown, log: Logger | undefined, requestId: string | undefined): void {
  log?.error('unhandled error', {
    requestId,
    error: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
    stack: err instanceof Error ? err.stack : undefined,
  });
}

/** The API's 500 without a framework, for the handlers served ahead of hono (see public-document.ts). */
export const internalErrorResponse = (err: unknown, log: Logger, requestId: string): Response =>
  plainApiErrorResponse(err, log, requestId, { 'X-Request-Id': requestId });
