import { afterEach, describe, expect, test } from 'bun:test';
import { compactVerify, importJWK, type JWK } from 'jose';
import { base64url } from '../../src/crypto/encoding.ts';
import { retireKey, rotateManually } from '../../src/keys/key-admin.ts';
import { KeyService } from '../../src/keys/signing-keys.ts';
import { type TestContext, testContext } from '../helpers/context.ts';

let ctx: TestContext;
const services: KeyService[] = [];
afterEach(() => {
  for (const s of services.splice(0)) s.close();
  ctx?.cleanup();
});

/** The server's key service, as another process than the operator's CLI (`ctx`). */
function serverKeys(threads: number): KeyService {
  const config = { ...ctx.config, server: { ...ctx.config.server, signing_threads: threads } };
  const keys = new KeyService(ctx.db, config, ctx.clock);
  services.push(keys);
  return keys;
}

const inputs = (...subs: string[]) =>
  subs.map((sub) => `${base64url(JSON.stringify({ alg: 'RS256' }))}.${base64url(JSON.stringify({ sub }))}`);

/** Signs `input` as the token endpoint does: the key decided on this thread, the signature made on another. */
async function sign(keys: KeyService, input: string) {
  const key = await keys.signingKey();
  return { kid: key.kid, signature: await keys.sign(key, input) };
}

async function signedBy(input: string, signature: string, kid: string): Promise<boolean> {
  const publicJwk = (await ctx.keys.files.loadPublic(kid)) as JWK;
  try {
    await compactVerify(`${input}.${signature}`, await importJWK(publicJwk, 'RS256'));
    return true;
  } catch {
    return false;
  }
}

describe('signing threads and the key set', () => {
  test('after "keys rotate --now" and removal in another process, the threads sign with the successor', async () => {
    ctx = await testContext();
    const keys = serverKeys(2);
    const old = (await keys.signingKey()).kid;
    // Enough signatures in one turn to reach both threads, which then hold the old key.
    const first = inputs('a', 'b', 'c', 'd');
    for (const [i, s] of (await Promise.all(first.map((input) => sign(keys, input)))).entries()) {
      expect(s.kid).toBe(old);
      expect(await signedBy(first[i]!, s.signature, old)).toBe(true);
    }

    const active = (await rotateManually(ctx, { immediate: true })).active.RS256!;
    await retireKey(ctx, old, { remove: true });
    const second = inputs('e', 'f', 'g', 'h');
    for (const [i, s] of (await Promise.all(second.map((input) => sign(keys, input)))).entries()) {
      expect(s.kid).toBe(active);
      expect(await signedBy(second[i]!, s.signature, active)).toBe(true);
      expect(await signedBy(second[i]!, s.signature, old)).toBe(false);
    }
  });

  test('signing_threads = 0 signs on the calling thread, byte for byte as the threads do', async () => {
    ctx = await testContext();
    const [input] = inputs('ada');
    const inline = await sign(serverKeys(0), input!);
    expect(inline).toEqual(await sign(serverKeys(2), input!));
    expect(await signedBy(input!, inline.signature, inline.kid)).toBe(true);
  });
});
