import * as ffi from 'bun:ffi';
import { describe, expect, test } from 'bun:test';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { compactVerify, importJWK, type JWK } from 'jose';
import { loadLibcrypto } from '../../src/platform/libcrypto.ts';
import { importRsaPrivateJwk, rs256Signer } from '../../src/platform/rs256.ts';
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
    const native = rs256Signer(loadLibcrypto(ffi));
    expect(native.provider).toBe('libcrypto');
    const fallback = rs256Signer(undefined);
    const key = importRsaPrivateJwk(privateJwk);
    // A second key object of the same key gets a native context of its own.
    const again = importRsaPrivateJwk(privateJwk);
    for (const input of inputs) {
      const jwsInput = `${header}.${Buffer.from(input).toString('base64url')}`;
      const sig = native.signRs256(key, jwsInput);
      expect(sig).toBe(fallback.signRs256(key, jwsInput));
      expect(native.signRs256(again, jwsInput)).toBe(sig);
      expect(await verifiedByJose(jwsInput, sig)).toBe(input);
    }
  });

  test('a key that is not RSA is refused, at import and by the native signer', () => {
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    expect(() => importRsaPrivateJwk(ec.export({ format: 'jwk' }) as JsonWebKey)).toThrow('RSA key only');
    const native = loadLibcrypto(ffi);
    if (native) expect(() => native.signRs256(ec, 'x')).toThrow('RSA key only');
  });

  test.if(systemLibcrypto)('the library is loaded by the first signature, not before', () => {
    // A process of its own: this one may have signed already.
    const script = `
      const { runtime } = await import(${JSON.stringify(join(import.meta.dir, '../../src/platform/runtime.ts'))});
      const { generateKeyPairSync } = await import('node:crypto');
      const { readFileSync } = await import('node:fs');
      const loaded = () => readFileSync('/proc/self/maps', 'utf8').includes('libcrypto.so.3');
      const jwk = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
      const key = runtime.importRsaPrivateJwk(jwk);
      const before = loaded();
      runtime.signRs256(key, 'x');
      console.log(JSON.stringify({ before, after: loaded(), provider: runtime.rs256Provider }));`;
    const r = Bun.spawnSync([process.execPath, '-e', script], { stderr: 'inherit' });
    expect(JSON.parse(r.stdout.toString())).toEqual({ before: false, after: true, provider: 'libcrypto' });
  });

  test('without the library, node:crypto signs and jose verifies it', async () => {
    expect(loadLibcrypto(ffi, '/nonexistent/libcrypto.so.3')).toBeUndefined();
    const signer = rs256Signer(loadLibcrypto(ffi, '/nonexistent/libcrypto.so.3'));
    expect(signer.provider).toBe('node:crypto');
    const key = importRsaPrivateJwk(privateJwk);
    const jwsInput = `${header}.${Buffer.from('{"sub":"ada"}').toString('base64url')}`;
    expect(await verifiedByJose(jwsInput, signer.signRs256(key, jwsInput))).toBe('{"sub":"ada"}');
  });
});
