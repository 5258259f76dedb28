import { base64url, hex, utf8 } from './encoding.ts';

/** 256 random bits, base64url; with a prefix such as "at_" or "cs_test_" so leaked values are recognisable. */
export function randomToken(prefix = '', bytes = 32): string {
  return prefix + base64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

/** Short random ids for rows ("app_…", "psn_…"); not secrets. */
export function randomId(prefix: string): string {
  return prefix + base64url(crypto.getRandomValues(new Uint8Array(12)));
}

/** Credentials, codes and tokens are stored only as this hash. */
export async function sha256Hex(text: string): Promise<string> {
  return hex(new Uint8Array(await crypto.subtle.digest('SHA-256', utf8(text))));
}

export async function sha256(bytes: Uint8Array<ArrayBuffer> | string): Promise<Uint8Array> {
  return new Uint8Array(
    await crypto.subtle.digest('SHA-256', typeof bytes === 'string' ? utf8(bytes) : bytes),
  );
}

/** Constant-time comparison of two strings of any length (their hashes are compared). */
export async function timingSafeEqual(a: string, b: string): Promise<boolean> {
  const [ha, hb] = await Promise.all([sha256(a), sha256(b)]);
  let diff = 0;
  for (let i = 0; i < ha.length; i++) diff |= ha[i]! ^ hb[i]!;
  return diff === 0 && a.length === b.length;
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
