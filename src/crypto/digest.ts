import { createHash, createHmac } from 'node:crypto';
import { runtime } from '../platform/runtime.ts';

// The one SHA-256: the runtime's native one, synchronous so the token endpoint's hot path can hash
// inside its synchronous transaction. Neither WebCrypto (an asynchronous round trip per digest) nor a
// WebAssembly build (about three times slower here, and an exchange needs half a dozen digests) keeps
// up with the signature it is bound by.
export const sha256HexSync: (text: string) => string = runtime.sha256Hex;

export const sha256BytesSync: (data: string | Uint8Array) => Uint8Array = runtime.sha256Bytes;

/** HMAC-SHA256 keyed with a UTF-8 string (the pairwise secret), base64url. */
export const hmacSha256Base64url: (key: string, message: string) => string = runtime.hmacSha256Base64url;

/** HMAC-SHA256 keyed with a UTF-8 string, hex. */
export function hmacSha256Hex(key: string, message: string): string {
  return createHmac('sha256', key).update(message).digest('hex');
}

/** SHA-256 over data given in pieces (a file streamed through), hex. */
export function sha256Incremental() {
  const h = createHash('sha256');
  return {
    update(data: Uint8Array) {
      h.update(data);
    },
    hex: () => h.digest('hex'),
  };
}
