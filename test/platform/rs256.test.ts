import { describe, expect, test } from 'bun:test';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync } from 'node:fs';
import { compactVerify, importJWK, type JWK } from 'jose';
import { loadLibcrypto } from '../../src/platform/libcrypto.ts';
import { rs256Signer } from '../../src/platform/rs256.ts';
import { runtime } from '../../src/platform/runtime.ts';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const privateJwk = privateKey.export({ format: 'jwk' }) as JsonWebKey;
const publicJwk = publicKey.export({ format: 'jwk' }) as JWK;
const header = Buffer.from(JSON.stringify({ alg: 'RS256', typ: 'JWT', kid: 'k1' })).toString('base64url');
const inputs = [
  '',
  'a',
  `${header}.${Buffer.from('{"sub":"ada","é":"ü"}').toString('base64url')}`,
  'x'.repeat(5000),
];
const systemLibcrypto = [
  '/usr/lib/x86_64-linux-gnu/libcrypto.so.3',
  '/usr/lib/aarch64-linux-gnu/libcrypto.so.3',
].some(existsSync);

async function verifiedByJose(jwsInput: string, signature: string) {
  const { payload } = await compactVerify(`${jwsInput}.${signature}`, await importJWK(publicJwk, 'RS256'));
  return Buffer.from(payload).toString();
}

describe('RS256 through the system libcrypto', () => {
  test.if(systemLibcrypto)('is the signer Bun uses when the system has libcrypto.so.3', () => {
    expect(runtime.rs256Provider).toBe('libcrypto');
  });

  test.if(systemLibcrypto)('signs byte for byte as node:crypto, and jose verifies it', async () => {
    const native = rs256Signer(await loadLibcrypto());
    expect(native.provider).toBe('libcrypto');
    const fallback = rs256Signer(undefined);
    const nk = native.importRsaPrivateJwk(privateJwk);
    const fk = fallback.importRsaPrivateJwk(privateJwk);
    for (const input of inputs) {
      const jwsInput = `${header}.${Buffer.from(input).toString('base64url')}`;
      const sig = native.signRs256(nk, jwsInput);
      expect(sig).toBe(fallback.signRs256(fk, jwsInput));
      expect(await verifiedByJose(jwsInput, sig)).toBe(input);
    }
  });

  test.if(systemLibcrypto)('a key it did not import, or one that is not RSA, is refused', async () => {
    const native = rs256Signer(await loadLibcrypto());
    const foreign = rs256Signer(undefined).importRsaPrivateJwk(privateJwk);
    expect(() => native.signRs256(foreign, 'x')).toThrow('not imported through libcrypto');
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
    expect(() => native.importRsaPrivateJwk(ec as JsonWebKey)).toThrow();
  });

  test('without the library, node:crypto signs and jose verifies it', async () => {
    expect(await loadLibcrypto('/nonexistent/libcrypto.so.3')).toBeUndefined();
    const signer = rs256Signer(await loadLibcrypto('/nonexistent/libcrypto.so.3'));
    expect(signer.provider).toBe('node:crypto');
    const key = signer.importRsaPrivateJwk(privateJwk);
    const jwsInput = `${header}.${Buffer.from('{"sub":"ada"}').toString('base64url')}`;
    expect(await verifiedByJose(jwsInput, signer.signRs256(key, jwsInput))).toBe('{"sub":"ada"}');
  });
});
