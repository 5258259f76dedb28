/**
 * Every failure the SDK reports is a `VerityError` with a stable `code`, so callers can `switch` on it.
 * Server answers keep the interface's own codes (`invalid_grant`, `insufficient_scope`,
 * `IDENTITY_DOCUMENT_NOT_FOUND`, `RATE_LIMIT_EXCEEDED`, …); checks the SDK makes itself use the
 * codes of `CallbackErrorCode`, `IdTokenErrorCode` and `DocumentProofErrorCode`.
 */
export class VerityError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** Why `handleCallback` refused a callback before any code was exchanged. */
export type CallbackErrorCode =
  | 'transaction_missing'
  | 'transaction_expired'
  | 'transaction_consumed'
  | 'state_missing'
  | 'state_mismatch'
  | 'issuer_missing'
  | 'issuer_mismatch'
  | 'code_missing';

export class CallbackError extends VerityError {
  declare readonly code: CallbackErrorCode;
  constructor(code: CallbackErrorCode, message: string) {
    super(code, message);
  }
}

/**
 * The authorization server sent the browser back with `error` (e.g. `access_denied`) instead of a code.
 * `transactionId` lets a popup callback page still tell its opener which sign-in ended.
 */
export class AuthorizationError extends VerityError {
  constructor(
    code: string,
    readonly description: string | undefined,
    readonly transactionId: string,
  ) {
    super(code, description ? `${code}: ${description}` : code);
  }
}

export type IdTokenErrorCode =
  | 'id_token_malformed'
  | 'id_token_alg'
  | 'id_token_kid'
  | 'id_token_signature'
  | 'id_token_iss'
  | 'id_token_aud'
  | 'id_token_azp'
  | 'id_token_expired'
  | 'id_token_iat'
  | 'id_token_auth_time'
  | 'id_token_nonce'
  | 'id_token_at_hash'
  | 'id_token_sub'
  | 'id_token_claims';

export class IdTokenError extends VerityError {
  declare readonly code: IdTokenErrorCode;
  constructor(code: IdTokenErrorCode, message: string) {
    super(code, message);
  }
}

/** Why `verifyDocumentProof` refused a JWT. */
export type DocumentProofErrorCode =
  | 'proof_malformed'
  | 'proof_alg'
  | 'proof_typ'
  | 'proof_kid'
  | 'proof_signature'
  | 'proof_iss'
  | 'proof_aud'
  | 'proof_expired'
  | 'proof_iat'
  | 'proof_claims';

export class DocumentProofError extends VerityError {
  declare readonly code: DocumentProofErrorCode;
  constructor(code: DocumentProofErrorCode, message: string) {
    super(code, message);
  }
}

/**
 * The token endpoint's `{ error, error_description }`, or a Bearer challenge on UserInfo/documents
 * (`invalid_token` when the token expired or the consent was revoked, `insufficient_scope`).
 */
export class OAuthResponseError extends VerityError {
  constructor(
    code: string,
    readonly description: string | undefined,
    readonly status: number,
    readonly wwwAuthenticate?: string,
    /** Verity's request id, when the body carried one (quote it when asking the operator). */
    readonly requestId?: string,
  ) {
    super(code, description ? `${code}: ${description}` : code);
  }
}

/** Any other API endpoint's `{ error: { code, message, requestId } }`. */
export class ApiResponseError extends VerityError {
  constructor(
    code: string,
    message: string,
    readonly status: number,
    readonly requestId?: string,
  ) {
    super(code, message);
  }
}

/** 429 `RATE_LIMIT_EXCEEDED`; `retryAfterSeconds` comes from `Retry-After` and says when to try again. */
export class RateLimitError extends VerityError {
  constructor(
    readonly retryAfterSeconds: number | undefined,
    readonly status = 429,
  ) {
    super(
      'RATE_LIMIT_EXCEEDED',
      retryAfterSeconds === undefined
        ? 'rate limit exceeded'
        : `rate limit exceeded; retry after ${retryAfterSeconds} s`,
    );
  }
}

/** The server answered with something the interface does not describe (network error, HTML, 5xx…). */
export class UnexpectedResponseError extends VerityError {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super('unexpected_response', message);
  }
}

/**
 * A value from a token's header as an error message quotes it: JSON-escaped (no line breaks or control
 * characters reach a log) and cut to 64 characters. The token may be anyone's.
 */
export function quoted(value: unknown): string {
  const text = JSON.stringify(typeof value === 'string' ? value : String(value));
  return text.length > 66 ? `${text.slice(0, 65)}…"` : text;
}
