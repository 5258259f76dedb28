import { createPrivateKey, type KeyObject, type JsonWebKey as NodeJwk, sign } from 'node:crypto';

/**
 * ES256 and EdDSA (Ed25519) signatures through node:crypto, which Bun, Node and Deno all provide;
 * synchronous like RS256's (`rs256.ts`), so an ID token is signed without an await whatever its
 * algorithm. Both are many times faster than RS256, so no native path is needed for them.
 */
export function importPrivateJwk(jwk: JsonWebKey): KeyObject {
  return createPrivateKey({ key: jwk as NodeJwk, format: 'jwk' });
}

/** ECDSA P-256 with SHA-256; JWS wants r ‖ s (RFC 7518 §3.4), not node's default DER. Base64url. */
export function signEs256(key: KeyObject, input: string): string {
  return sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' }).toString('base64url');
}

/** Ed25519 (RFC 8037 §3.1), which hashes internally: no digest is named. Base64url. */
export function signEd25519(key: KeyObject, input: string): string {
  return sign(null, Buffer.from(input), key).toString('base64url');
}
