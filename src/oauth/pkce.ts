import { sha256BytesSync } from '../crypto/digest.ts';
import { base64url } from '../crypto/encoding.ts';

/** A S256 challenge is the base64url SHA-256 of the verifier: always 43 characters. */
export const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/** RFC 7636 §4.1: 43 to 128 unreserved characters. */
export const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

export function s256(verifier: string): string {
  return base64url(sha256BytesSync(verifier));
}

/** Whether `verifier` is well formed and hashes to `challenge`. */
export function verifyPkce(verifier: string, challenge: string): boolean {
  if (!VERIFIER.test(verifier)) return false;
  return s256(verifier) === challenge;
}
