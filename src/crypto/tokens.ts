import { sha256BytesSync, sha256HexSync } from './digest.ts';
import { base64url, utf8 } from './encoding.ts';

/** 256 random bits, base64url; with a prefix such as "at_" or "cs_test_" so leaked values are recognisable. */
export function randomToken(prefix = '', bytes = 32): string {
  return prefix + base64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

/** Short random ids for rows ("app_…", "psn_…"); not secrets. */
export function randomId(prefix: string): string {
  return prefix + base64url(crypto.getRandomValues(new Uint8Array(12)));
}

/** Credentials, codes and tokens are stored only as this hash (`sha256HexSync` inside transactions). */
export async function sha256Hex(text: string): Promise<string> {
  return sha256HexSync(text);
}

export async function sha256(bytes: Uint8Array | string): Promise<Uint8Array> {
  return sha256BytesSync(bytes);
}

/**
 * Compares two equal-length values (hex digests, byte strings) without early exit; a length
 * difference returns false at once, so use it only where lengths are public (fixed-size hashes).
 */
export function constantTimeEqual(a: string | Uint8Array, b: string | Uint8Array): boolean {
  if (a.length !== b.length) return false;
  const at = (v: string | Uint8Array, i: number) => (typeof v === 'string' ? v.charCodeAt(i) : v[i]!);
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= at(a, i) ^ at(b, i);
  return diff === 0;
}

/** Constant-time comparison of two strings of any length (their hashes are compared). */
export async function timingSafeEqual(a: string, b: string): Promise<boolean> {
  return constantTimeEqual(sha256BytesSync(a), sha256BytesSync(b)) && a.length === b.length;
}

export async function hmacSha256(
  key: Uint8Array<ArrayBuffer> | string,
  message: string,
): Promise<Uint8Array> {
  const k = await crypto.subtle.importKey(
    'raw',
    typeof key === 'string' ? utf8(key) : key,
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  return new Uint8Array(await crypto.subtle.sign('HMAC', k, utf8(message)));
}
