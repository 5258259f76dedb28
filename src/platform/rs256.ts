import { createPrivateKey, type KeyObject, type JsonWebKey as NodeJwk, sign } from 'node:crypto';

/**
 * RS256 signing through the runtime's native crypto (node:crypto, which Bun, Node and Deno all
 * provide). It is a seam because the token endpoint's throughput is bounded by this one signature:
 * WebCrypto's `subtle.sign` (what jose uses) is asynchronous and, under Bun, hops through a worker
 * thread; the synchronous native call signs about a quarter faster. The token endpoint makes it on a
 * pool of threads (signing-pool.ts).
 */
export type RsaPrivateKey = KeyObject;

export function importRsaPrivateJwk(jwk: JsonWebKey): RsaPrivateKey {
  const key = createPrivateKey({ key: jwk as NodeJwk, format: 'jwk' });
  // node:crypto's sign would make an ECDSA or EdDSA signature with another key, under the RS256 name.
  if (key.asymmetricKeyType !== 'rsa') throw new Error('RS256 signs with an RSA key only');
  return key;
}

/** RSASSA-PKCS1-v1_5 with SHA-256 over the UTF-8 bytes of `input`, base64url without padding. */
export function signRs256(key: RsaPrivateKey, input: string): string {
  return sign('sha256', Buffer.from(input), key).toString('base64url');
}

/** A native signature over keys imported as above (libcrypto.ts). */
export interface NativeRs256 {
  signRs256(key: RsaPrivateKey, input: string): string;
}

export interface Rs256Signer {
  /** Which implementation signs: logged with the first signature. */
  provider: 'libcrypto' | 'node:crypto';
  signRs256(key: RsaPrivateKey, input: string): string;
}

/** The native signer when one loaded, else node:crypto. */
export function rs256Signer(native?: NativeRs256): Rs256Signer {
  return native
    ? { provider: 'libcrypto', signRs256: native.signRs256 }
    : { provider: 'node:crypto', signRs256 };
}
