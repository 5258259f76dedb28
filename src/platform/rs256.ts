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
  return createPrivateKey({ key: jwk as NodeJwk, format: 'jwk' });
}

/** RSASSA-PKCS1-v1_5 with SHA-256 over the UTF-8 bytes of `input`, base64url without padding. */
export function signRs256(key: RsaPrivateKey, input: string): string {
  return sign('sha256', Buffer.from(input), key).toString('base64url');
}

export interface Rs256Signer {
  /** Which implementation signs: reported at start-up. */
  provider: 'libcrypto' | 'node:crypto';
  importRsaPrivateJwk(jwk: JsonWebKey): RsaPrivateKey;
  signRs256(key: RsaPrivateKey, input: string): string;
}

/** The native signer when one loaded, else node:crypto. */
export function rs256Signer(native?: Omit<Rs256Signer, 'provider'>): Rs256Signer {
  return native
    ? { provider: 'libcrypto', ...native }
    : { provider: 'node:crypto', importRsaPrivateJwk, signRs256 };
}
