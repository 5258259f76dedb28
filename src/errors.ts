/**
 * Typed errors raised by domain code. `src/http/errors.ts` alone turns them into the interface's wire
 * shapes; anything else becomes a 500 with no detail.
 */

/** Token endpoint `{ error, error_description }`, authorize redirects, and Bearer challenges. */
export class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly status = 400,
    readonly headers: Record<string, string> = {},
  ) {
    super(`${error}: ${description}`);
  }
}

/** Every other API endpoint: `{ error: { code, message, requestId } }`. */
export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
    readonly details?: Record<string, unknown>,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** A rule that an operator or developer input broke; the CLI prints it, the API maps it to VALIDATION_FAILED. */
export class ValidationError extends Error {
  constructor(
    message: string,
    readonly fields: { path: string; message: string }[] = [],
  ) {
    super(message);
  }
}

/** A ValidationError as one line for a page: each field's rule, or its message when it names none. */
export const validationMessage = (err: ValidationError): string =>
  err.fields.length ? err.fields.map((f) => `${f.path}: ${f.message}`).join('; ') : err.message;

export class NotFoundError extends Error {}
