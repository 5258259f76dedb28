import { afterEach, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { generateKeyPair, SignJWT } from 'jose';
import { fixedClock } from '../../src/platform/clock.ts';
import {
  createJwksCache,
  IdTokenError,
  type JwksCacheOptions,
  UnexpectedResponseError,
  validateIdToken,
} from '../../src/sdk/index.ts';
import {
  type FakeKey,
  type FakeVerity,
  newKey,
  signIdToken,
  startFakeVerity,
  unsignedToken,
} from './fake-verity.ts';

const CLIENT = 'cid_test_client';
const NONCE = 'n'.repeat(43);

let fake: FakeVerity;
let key: FakeKey;
let next: FakeKey;
let rogue: FakeKey;
const clock = fixedClock(Date.UTC(2026, 5, 1, 12));

// RSA key generation is slow; three keys serve every test.
beforeAll(async () => {
  [key, next, rogue] = await Promise.all([newKey('k1'), newKey('k2'), newKey('k3')]);
});

beforeEach(async () => {
  clock.set(Date.UTC(2026, 5, 1, 12));
  fake = await startFakeVerity();
  fake.published = [key];
});
afterEach(() => fake.stop());

const jwks = (o: Omit<JwksCacheOptions, 'jwksUri'> = {}) =>
  createJwksCache({ jwksUri: `${fake.url}/.well-known/jwks.json`, ...o });
const opts = (cache = jwks()) => ({ issuer: fake.url, clientId: CLIENT, nonce: NONCE, jwks: cache, clock });
const token = (over: Partial<Parameters<typeof signIdToken>[0]> = {}) =>
  signIdToken({ key, iss: fake.url, aud: CLIENT, nonce: NONCE, now: clock.now(), ...over });

async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(IdTokenError);
    return (e as IdTokenError).code;
  }
  throw new Error('the token was accepted');
}

describe('validateIdToken', () => {
  test('accepts a token of the right issuer, audience and nonce and returns its claims', async () => {
    const claims = await validateIdToken(await token(), opts());
    expect(claims.sub).toBe('pairwise-sub-1');
    expect(claims.nonce).toBe(NONCE);
    expect(claims.acr).toBe('high');
  });

  test('refuses a wrong iss', async () => {
    expect(await refusal(validateIdToken(await token({ iss: 'https://evil.example' }), opts()))).toBe(
      'id_token_iss',
    );
  });

  test('refuses a wrong aud, and any audience besides this client (the interface: aud equals the client ID)', async () => {
    expect(await refusal(validateIdToken(await token({ aud: 'cid_test_other' }), opts()))).toBe(
      'id_token_aud',
    );
    for (const azp of ['cid_test_other', CLIENT]) {
      const multi = await token({ aud: [CLIENT, 'cid_test_other'], extra: { azp } });
      expect(await refusal(validateIdToken(multi, opts()))).toBe('id_token_aud');
    }
    const single = await token({ aud: [CLIENT], extra: { azp: CLIENT } });
    expect((await validateIdToken(single, opts())).sub).toBe('pairwise-sub-1');
  });

  test('refuses an azp naming another client even with this client as the only audience', async () => {
    const other = await token({ extra: { azp: 'cid_test_other' } });
    expect(await refusal(validateIdToken(other, opts()))).toBe('id_token_azp');
    expect((await validateIdToken(await token({ extra: { azp: CLIENT } }), opts())).azp).toBe(CLIENT);
  });

  test('refuses a nonce other than the transaction nonce', async () => {
    expect(await refusal(validateIdToken(await token({ nonce: 'm'.repeat(43) }), opts()))).toBe(
      'id_token_nonce',
    );
  });

  // OIDC Core §3.1.3.7: the sign-in must be as recent as the max_age the request asked for.
  test('with max_age, refuses a sign-in older than it (60 s of skew allowed)', async () => {
    const t = await token({ authTimeOffset: -3600 });
    expect((await validateIdToken(t, { ...opts(), maxAge: 3600 })).sub).toBe('pairwise-sub-1');
    expect((await validateIdToken(t, { ...opts(), maxAge: 3541 })).sub).toBe('pairwise-sub-1');
    expect(await refusal(validateIdToken(t, { ...opts(), maxAge: 3539 }))).toBe('id_token_auth_time');
    expect((await validateIdToken(t, opts())).sub).toBe('pairwise-sub-1');
  });

  test('with prompt=login, refuses a sign-in from before this one began (60 s of skew allowed)', async () => {
    const t = await token({ authTimeOffset: -100 });
    const since = (secondsAgo: number) => new Date(clock.now().getTime() - secondsAgo * 1000);
    expect((await validateIdToken(t, { ...opts(), signedInSince: since(100) })).sub).toBe('pairwise-sub-1');
    expect((await validateIdToken(t, { ...opts(), signedInSince: since(41) })).sub).toBe('pairwise-sub-1');
    expect(await refusal(validateIdToken(t, { ...opts(), signedInSince: since(39) }))).toBe(
      'id_token_auth_time',
    );
  });

  test('tolerates at most 60 s of skew on exp, iat and auth_time', async () => {
    const t = await token({ expIn: 900 });
    clock.advance(900_000 + 59_000);
    expect((await validateIdToken(t, opts())).sub).toBe('pairwise-sub-1');
    clock.advance(2_000); // 61 s past exp
    expect(await refusal(validateIdToken(t, opts()))).toBe('id_token_expired');

    clock.set(Date.UTC(2026, 5, 1, 12));
    expect(
      (await validateIdToken(await token({ iatOffset: 59, authTimeOffset: 59 }), opts())).sub,
    ).toBeDefined();
    expect(await refusal(validateIdToken(await token({ iatOffset: 61 }), opts()))).toBe('id_token_iat');
    expect(await refusal(validateIdToken(await token({ authTimeOffset: 61 }), opts()))).toBe(
      'id_token_auth_time',
    );
  });

  test('refuses any alg other than RS256: none, HS256 keyed with the public key, RS512', async () => {
    const claims = { iss: fake.url, aud: CLIENT, sub: 's', nonce: NONCE, iat: 1, exp: 9e9, auth_time: 1 };
    expect(await refusal(validateIdToken(unsignedToken(claims, { alg: 'none', kid: 'k1' }), opts()))).toBe(
      'id_token_alg',
    );
    const hs = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', kid: 'k1' })
      .sign(new TextEncoder().encode(key.jwk.n));
    expect(await refusal(validateIdToken(hs, opts()))).toBe('id_token_alg');
    const rs512Key = (await generateKeyPair('RS512')).privateKey;
    const rs512 = await new SignJWT(claims).setProtectedHeader({ alg: 'RS512', kid: 'k1' }).sign(rs512Key);
    expect(await refusal(validateIdToken(rs512, opts()))).toBe('id_token_alg');
  });

  test('refuses a token signed by a key that is not the published one with that kid', async () => {
    const impostor = { ...rogue, kid: 'k1' };
    expect(await refusal(validateIdToken(await token({ key: impostor }), opts()))).toBe('id_token_signature');
  });

  // The key set's cache runs on real time (jose's createRemoteJWKSet), so the tests choose durations of
  // zero or of many minutes instead of advancing a clock.
  test('refetches the JWKS for a kid it does not hold, and not for the keys it holds', async () => {
    const cache = jwks({ cooldownDuration: 0 });
    await validateIdToken(await token(), opts(cache));
    expect(fake.count('/.well-known/jwks.json')).toBe(1);

    // The server rotates: the new key signs tokens the cached set does not know yet.
    fake.published = [key, next];
    const claims = await validateIdToken(await token({ key: next }), opts(cache));
    expect(claims.sub).toBe('pairwise-sub-1');
    expect(fake.count('/.well-known/jwks.json')).toBe(2);

    // Both keys are now cached: no more fetches.
    await validateIdToken(await token(), opts(cache));
    await validateIdToken(await token({ key: next }), opts(cache));
    expect(fake.count('/.well-known/jwks.json')).toBe(2);
    expect(cache.fetchCount).toBe(2);

    // A kid nobody published is looked up once more, then refused.
    expect(await refusal(validateIdToken(await token({ key: rogue }), opts(cache)))).toBe('id_token_kid');
    expect(fake.count('/.well-known/jwks.json')).toBe(3);
  });

  test('made-up kids within the cooldown do not make every validation fetch the JWKS again', async () => {
    const cache = jwks({ cooldownDuration: 10 * 60_000 });
    await validateIdToken(await token(), opts(cache));
    for (let i = 0; i < 5; i++)
      expect(await refusal(validateIdToken(await token({ key: rogue }), opts(cache)))).toBe('id_token_kid');
    expect(fake.count('/.well-known/jwks.json')).toBe(1);
  });

  test('keeps the key set for cacheMaxAge', async () => {
    const kept = jwks({ cacheMaxAge: 10 * 60_000 });
    for (let i = 0; i < 3; i++) await validateIdToken(await token(), opts(kept));
    expect(kept.fetchCount).toBe(1);
    const uncached = jwks({ cacheMaxAge: 0 });
    for (let i = 0; i < 3; i++) await validateIdToken(await token(), opts(uncached));
    expect(uncached.fetchCount).toBe(3);
  });

  // The interface: clients cache the JWKS according to its response headers.
  test("follows the JWKS's Cache-Control: a set it says not to keep is fetched again, and a withdrawn key refused", async () => {
    const cache = jwks();
    for (let i = 0; i < 3; i++) await validateIdToken(await token(), opts(cache));
    expect(cache.fetchCount).toBe(1); // max-age=300, Verity's own
    // A field-qualified no-cache names a header, not the response: still kept for its max-age.
    fake.jwksCacheControl = 'private, no-cache="Set-Cookie", max-age=300';
    const qualified = jwks();
    for (let i = 0; i < 3; i++) await validateIdToken(await token(), opts(qualified));
    expect(qualified.fetchCount).toBe(1);
    fake.jwksCacheControl = 'no-store, max-age=0';
    const fresh = jwks();
    await validateIdToken(await token(), opts(fresh));
    fake.published = [];
    expect(await refusal(validateIdToken(await token(), opts(fresh)))).toBe('id_token_kid');
    expect(fresh.fetchCount).toBe(2);
  });

  /** A cache whose fetches fail while `state.down`, with a one-second cooldown and a set kept one second. */
  function failing(failure: () => Promise<Response>) {
    fake.jwksCacheControl = 'public, max-age=1';
    const state = { down: false, fetches: 0 };
    const cache = jwks({
      cooldownDuration: 1000,
      fetch: async (input, init) => {
        state.fetches++;
        return state.down ? failure() : fetch(input, init);
      },
    });
    return { state, cache, now: () => ({ ...opts(cache), clock: { now: () => new Date() } }) };
  }
  const realToken = () => signIdToken({ key, iss: fake.url, aud: CLIENT, nonce: NONCE, now: new Date() });

  /**
   * A token validated once, then the set gone stale (kept one second, cooldown one second); with `down`,
   * its endpoint then failing as `failure` does.
   */
  async function staleAfterOne(failure: () => Promise<Response>, down = true) {
    const { state, cache, now } = failing(failure);
    const idToken = await realToken();
    const validate = () => validateIdToken(idToken, now());
    await validate();
    state.down = down;
    await Bun.sleep(1100);
    return { state, cache, validate };
  }
  const refused = async (): Promise<Response> => {
    throw new TypeError('connection refused');
  };

  test('past max-age an endpoint that does not answer fails every validation, and is tried again only after the cooldown', async () => {
    const s = await staleAfterOne(refused);
    for (let i = 0; i < 20; i++)
      expect(await s.validate().catch((e) => e)).toBeInstanceOf(UnexpectedResponseError);
    expect(s.state.fetches).toBe(2);
    // Reachable again after the cooldown: the set is fetched and used.
    s.state.down = false;
    await Bun.sleep(1000);
    expect((await s.validate()).sub).toBeString();
  });

  test('validations side by side when the set goes stale wait for one refetch, and all pass', async () => {
    const s = await staleAfterOne(refused, false);
    const subs = await Promise.all(Array.from({ length: 5 }, () => s.validate()));
    expect(subs.map((c) => c.sub)).toEqual(Array(5).fill(subs[0]!.sub));
    expect([s.state.fetches, s.cache.fetchCount]).toEqual([2, 2]);
  });

  test('a failed refresh does not lift the max-age bound: a key withdrawn meanwhile is refused once it answers', async () => {
    const s = await staleAfterOne(async () => new Response('unavailable', { status: 503 }));
    await s.validate().catch(() => {});
    s.state.down = false;
    fake.published = [];
    await Bun.sleep(1100);
    expect(await s.validate().catch((e) => e)).toBeInstanceOf(IdTokenError);
    // The first set, the refresh that failed, and the one after the cooldown.
    expect(s.cache.fetchCount).toBe(3);
  });

  test("a header's alg and kid are quoted in the error escaped and cut short: the token may be anyone's", async () => {
    const forged = '\nlevel=error msg="admin signed in"'.repeat(10);
    const messages = await Promise.all(
      [{ alg: forged }, { alg: 'RS256', kid: forged }].map((header) =>
        validateIdToken(unsignedToken({}, header), opts()).catch((e: Error) => e.message),
      ),
    );
    for (const m of messages) {
      expect(m).not.toContain('\n');
      expect(m).toContain('\\nlevel=error');
      expect(m.length).toBeLessThan(120);
    }
  });

  test('a JWKS endpoint that fails is an UnexpectedResponseError, not a refused token', async () => {
    const cache = createJwksCache({ jwksUri: `${fake.url}/no-such-jwks` });
    const err = await validateIdToken(await token(), opts(cache)).catch((e) => e);
    expect(err).toBeInstanceOf(UnexpectedResponseError);
    expect(err.message).toContain('/no-such-jwks');
  });
});
