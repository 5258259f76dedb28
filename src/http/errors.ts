import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { ApiError, NotFoundError, OAuthError, ValidationError } from '../errors.ts';
import type { AppEnv } from './env.ts';

/** The one place typed errors become responses. */
export function apiErrorResponse(err: unknown, c: Context<AppEnv>): Response {
  const requestId = c.get('requestId') ?? '';
  const body = (
    code: string,
    message: string,
    status: number,
    extra?: Record<string, unknown>,
    headers?: Record<string, string>,
  ) => c.json({ error: { code, message, requestId, ...extra } }, status as ContentfulStatusCode, headers);

  if (err instanceof ApiError) return body(err.code, err.message, err.status, err.details, err.headers);
  if (err instanceof OAuthError) return body(err.error, err.description, err.status, undefined, err.headers);
  if (err instanceof ValidationError)
    return body(
      'VALIDATION_FAILED',
      err.message,
      400,
      err.fields.length ? { fields: err.fields } : undefined,
    );
  if (err instanceof NotFoundError) return body('NOT_FOUND', err.message || 'Not found.', 404);
  if (err instanceof HTTPException && err.status < 500)
    return body('INVALID_REQUEST', err.message, err.status);
  return internal(err, c, () => body('INTERNAL', 'An internal error occurred.', 500));
}

/** The token endpoint's shape: `{ error, error_description }`. */
export function tokenErrorResponse(err: unknown, c: Context<AppEnv>): Response {
  c.header('Cache-Control', 'no-store');
  if (err instanceof OAuthError) {
    for (const [k, v] of Object.entries(err.headers)) c.header(k, v);
    return c.json(
      { error: err.error, error_description: err.description },
      err.status as ContentfulStatusCode,
    );
  }
  if (err instanceof ApiError) {
    for (const [k, v] of Object.entries(err.headers)) c.header(k, v);
    return c.json({ error: err.code, error_description: err.message }, err.status as ContentfulStatusCode);
  }
  return internal(err, c, () =>
    c.json({ error: 'server_error', error_description: 'An internal error occurred.' }, 500),
  );
}

function internal(err: unknown, c: Context<AppEnv>, respond: () => Response): Response {
  c.get('log')?.error('unhandled error', {
    requestId: c.get('requestId'),
    error: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
    stack: err instanceof Error ? err.stack : undefined,
  });
  return respond();
}
