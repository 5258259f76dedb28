import { createHMAC, createSHA256, type IHasher } from 'hash-wasm';
import { base64url } from './encoding.ts';

// The one SHA-256 implementation: synchronous (WebAssembly, so portable), so the token endpoint's hot
// path can hash inside its synchronous transaction. Each WebCrypto digest is an asynchronous round
// trip through a worker thread; an exchange needs half a dozen hashes, and under load those round
// trips, not the hashing, would cost more than the RS256 signature the endpoint is bounded by.
const sha = await createSHA256();

export function sha256HexSync(text: string): string {
  sha.init();
  sha.update(text);
  return sha.digest('hex');
}

export function sha256BytesSync(data: string | Uint8Array): Uint8Array {
  sha.init();
  sha.update(data);
  return sha.digest('binary');
}

const hmacs = new Map<string, IHasher>();

/**
 * HMAC-SHA256 keyed with a UTF-8 string; one keyed instance is kept per key, so this is for the few
 * fixed instance keys (the pairwise secret), not for per-endpoint secrets (`hmacSha256`).
 */
export async function hmacSha256Base64url(key: string, message: string): Promise<string> {
  let h = hmacs.get(key);
  if (!h) {
    h = await createHMAC(createSHA256(), key);
    hmacs.set(key, h);
  }
  h.init();
  h.update(message);
  return base64url(h.digest('binary'));
}
