import { createHMAC, createSHA256, type IHasher } from 'hash-wasm';
import { base64url } from '../crypto/encoding.ts';

// Synchronous SHA-256 and HMAC (WebAssembly, so portable) for the token endpoint's hot path. Each
// WebCrypto digest is an asynchronous round trip through a worker thread; an exchange needs half a
// dozen hashes, and under load those round trips, not the hashing, would cost more than the RS256
// signature the endpoint is bounded by. Outputs are identical to `sha256Hex`/`hmacSha256`.
const sha = await createSHA256();

export function sha256HexSync(text: string): string {
  sha.init();
  sha.update(text);
  return sha.digest('hex');
}

export function sha256BytesSync(text: string): Uint8Array {
  sha.init();
  sha.update(text);
  return sha.digest('binary');
}

const hmacs = new Map<string, IHasher>();

/** HMAC-SHA256 keyed with a UTF-8 string; one keyed instance is kept per key. */
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
