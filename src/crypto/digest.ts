import { createHash, createHmac } from 'node:crypto';

// The one SHA-256: the runtime's native one through node:crypto (Bun, Node and Deno all provide it),
// synchronous so the token endpoint's hot path can hash inside its synchronous transaction. Neither
// WebCrypto (an asynchronous round trip per digest) nor a WebAssembly build (about three times
// slower here, and an exchange needs half a dozen digests) keeps up with the signature it is bound by.
export function sha256HexSync(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export function sha256BytesSync(data: string | Uint8Array): Uint8Array {
  return createHash('sha256').update(data).digest();
}

/** HMAC-SHA256 keyed with a UTF-8 string (the pairwise secret), base64url. */
export async function hmacSha256Base64url(key: string, message: string): Promise<string> {
  return createHmac('sha256', key).update(message).digest('base64url');
}
