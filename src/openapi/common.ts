import { z } from 'zod';
import type { ResponseSpec } from './route.ts';

/** `{ error: { code, message, requestId } }`: every API endpoint but the token and revocation endpoints. */
export const ApiErrorBody = z
  .object({
    error: z.object({
      code: z.string().meta({
        description:
          'Stable machine-readable code, e.g. `invalid_token`, `insufficient_scope`, `VALIDATION_FAILED`, `NOT_FOUND`, `RATE_LIMIT_EXCEEDED`, `INTERNAL`.',
      }),
      message: z.string().meta({ description: 'Human-readable explanation; not for parsing.' }),
      requestId: z.string().meta({ description: 'Also in the `X-Request-Id` response header.' }),
      fields: z
        .array(z.object({ path: z.string(), message: z.string() }))
        .optional()
        .meta({ description: 'With `VALIDATION_FAILED`: the offending fields.' }),
    }),
  })
  .meta({
    id: 'ApiError',
    description: 'Error shape of every API endpoint except the token and revocation endpoints.',
  });

/** `{ error, error_description }`: the token and revocation endpoints (RFC 6749 §5.2, RFC 7009 §2.2.1). */
export const TokenErrorBody = z
  .object({
    error: z.string().meta({
      description:
        '`invalid_request`, `invalid_client`, `invalid_grant`, `invalid_scope`, `unsupported_grant_type`, `RATE_LIMIT_EXCEEDED` or `server_error`.',
    }),
    error_description: z.string(),
  })
  .meta({ id: 'TokenError', description: 'Error shape of the token and revocation endpoints.' });

/** Response headers, declared once in `components.headers` and referred to by name. */
export const HEADERS: Record<string, { description: string; schema: z.ZodType }> = {
  'X-Request-Id': {
    description: 'Identifies the request in the server logs; also `requestId` in error bodies.',
    schema: z.string(),
  },
  'X-RateLimit-Limit': { description: 'Requests allowed in the current window.', schema: z.int() },
  'X-RateLimit-Remaining': { description: 'Requests left in the current window.', schema: z.int() },
  'X-RateLimit-Reset': { description: 'Seconds until the window resets.', schema: z.int() },
  'Retry-After': { description: 'Seconds to wait before retrying.', schema: z.int() },
  'WWW-Authenticate': {
    description: 'The authentication challenge (RFC 6750 §3 for bearer tokens, RFC 7617 for Basic).',
    schema: z.string(),
  },
  'Cache-Control': { description: 'How long the response may be cached.', schema: z.string() },
  Location: { description: 'Where the browser goes next.', schema: z.string() },
};

const RATE = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];

/** Headers of a response of a rate-limited endpoint. */
export const rated = (...more: string[]) => [...RATE, ...more];

export const apiError = (description: string, headers: string[] = []): ResponseSpec => ({
  description,
  schema: ApiErrorBody,
  headers,
});

export const tooManyRequests: ResponseSpec = apiError(
  'Rate limit exceeded (`RATE_LIMIT_EXCEEDED`); honour `Retry-After`.',
  rated('Retry-After'),
);

export const internalError: ResponseSpec = apiError('Unexpected failure (`INTERNAL`), never with detail.');

export const validationFailed: ResponseSpec = apiError(
  'The request is not valid (`VALIDATION_FAILED`), with the offending `fields`.',
  rated(),
);

export const unsupportedMediaType: ResponseSpec = apiError(
  'The body was sent as another type than `application/json` (`UNSUPPORTED_MEDIA_TYPE`).',
  rated(),
);

/** ISO 8601 timestamps as the API writes them (`2026-06-01T12:00:00.000Z`). */
export const timestamp = () => z.iso.datetime({ precision: 3 });
