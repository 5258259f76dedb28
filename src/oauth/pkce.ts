import { base64url } from '../crypto/encoding.ts';
import { sha256 } from '../crypto/tokens.ts';

/** A S256 challenge is the base64url SHA-256 of the verifier: always 43 characters. */
export const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/** RFC 7636 §4.1: 43 to 128 unreserved characters. */
export const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

export async function s256(verifier: string): Promise<string> {
  return base64url(await sha256(verifier));
}

/** Whether `verifier` is well formed and hashes to `challenge`. */
export async function verifyPkce(verifier: string, challenge: string): Promise<boolean> {
  if (!VERIFIER.test(verifier)) return false;
  return (await s256(verifier)) === challenge;
}
