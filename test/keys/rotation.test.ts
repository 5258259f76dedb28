import { afterEach, describe, expect, test } from 'bun:test';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Cron } from 'croner';
import { createLocalJWKSet, type JWK, jwtVerify, SignJWT } from 'jose';
import { listAudit } from '../../src/audit/audit.store.ts';
import { createContext } from '../../src/bootstrap.ts';
import type { AppContext } from '../../src/context.ts';
import { keysJobs } from '../../src/keys/jobs.ts';
import { keyMaterialOnDisk, verifyKeyBinding } from '../../src/keys/key-binding.ts';
import {
  ORPHAN_GRACE_SECONDS,
  promote,
  publishNext,
  rotateDue,
  timings,
  withKeysLock,
} from '../../src/keys/rotation.ts';
import { SIGNING_ALGS, type SigningAlg } from '../../src/keys/signing-algs.ts';
import { silentLogger } from '../../src/log.ts';
import { unix } from '../../src/platform/clock.ts';
import { type TestContext, tempDir, testConfig, testContext } from '../helpers/context.ts';
import { refuseWrites } from '../helpers/db-probes.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

let ctx: TestContext;
afterEach(() => ctx?.cleanup());

async function jwks(c: AppContext): Promise<{ keys: JWK[] }> {
  return JSON.parse(await c.keys.jwksBody());
}
const kids = async (c: AppContext) => (await jwks(c)).keys.map((k) => k.kid);
/** The kids of one state, RS256 first: the order the JWKS lists them in. */
const kidsIn = (c: AppContext, state: string) =>
  SIGNING_ALGS.flatMap((alg) =>
    c.keys.store
      .list()
      .filter((r) => r.state === state && r.alg === alg)
      .map((r) => r.kid),
  );
const sorted = (xs: readonly string[]) => [...xs].sort();

/** The invariant every step must keep: an active key of every algorithm, published, every row with its file. */
async function assertConsistent(c: TestContext) {
  for (const alg of SIGNING_ALGS) {
    const active = c.keys.store.active(alg);
    expect(active).toBeDefined();
    expect(await kids(c)).toContain(active!.kid);
    expect((await c.keys.signingKey(alg)).kid).toBe(active!.kid);
  }
  for (const row of c.keys.store.list()) expect(existsSync(keyPath(c, row.kid))).toBe(true);
}
const keyPath = (c: TestContext, kid: string) => join(c.dir, 'keys', `${kid}.jwk.json`);
const keyFilesOnDisk = (c: TestContext) =>
  readdirSync(join(c.dir, 'keys'))
    .filter((f) => f.endsWith('.jwk.json'))
    .map((f) => f.replace('.jwk.json', ''))
    .sort();

/** An ID-token-like JWT signed with the active key of `alg`. */
async function sign(c: AppContext, alg: SigningAlg = 'RS256', ttlSeconds = 900) {
  const { kid, key } = await c.keys.signingKey(alg);
  const now = unix(c.clock);
  const jwt = await new SignJWT({ sub: 's' })
    .setProtectedHeader({ alg, kid })
    .setIssuedAt(now)
    .setExpirationTime(now + ttlSeconds)
    .sign(key);
  return { jwt, kid };
}
async function verifies(c: AppContext, jwt: string) {
  const set = createLocalJWKSet(await jwks(c));
  try {
    await jwtVerify(jwt, set, { currentDate: c.clock.now(), clockTolerance: 60 });
    return true;
  } catch {
    return false;
  }
}

describe('scheduled rotation with a fixed clock', () => {
  test('next keys published publish_ahead before they sign, promoted together, old keys kept until tokens expire, then dropped together', async () => {
    ctx = await testContext({
      // A proof_ttl shorter than token_ttl: the tokens decide how long a retired key stays.
      extra:
        'rotate_every = "30d"\npublish_ahead = "1h"\n[oauth]\ntoken_ttl = "15m"\n[assurance]\nproof_ttl = "10m"',
    });
    const start = ctx.clock.now().getTime();
    const a = kidsIn(ctx, 'active');
    expect(a).toHaveLength(3);
    expect(await kids(ctx)).toEqual(a);

    // Nothing is due while the active keys are young.
    expect(await rotateDue(ctx)).toEqual({
      published: [],
      promoted: [],
      retired: [],
      removed: [],
      orphansRemoved: [],
    });
    ctx.clock.set(start + 30 * DAY - HOUR - 1000);
    expect((await rotateDue(ctx)).published).toEqual([]);
    await assertConsistent(ctx);

    // publish_ahead before the rotation: a next key of every algorithm appears in the JWKS, none signs.
    ctx.clock.advance(1000);
    const b = (await rotateDue(ctx)).published;
    expect(b).toHaveLength(3);
    expect(sorted(b)).toEqual(sorted(kidsIn(ctx, 'next')));
    expect(await kids(ctx)).toEqual([...a, ...kidsIn(ctx, 'next')]);
    for (const alg of SIGNING_ALGS) expect(a).toContain((await sign(ctx, alg)).kid);
    await assertConsistent(ctx);

    // Running again publishes nothing more.
    expect((await rotateDue(ctx)).published).toEqual([]);
    expect(ctx.keys.store.list().length).toBe(6);

    // One second before the rotation the A keys still sign.
    ctx.clock.set(start + 30 * DAY - 1000);
    await rotateDue(ctx);
    const lastOfA = await Promise.all(SIGNING_ALGS.map((alg) => sign(ctx, alg)));
    expect(lastOfA.map((t) => t.kid)).toEqual(a);

    // Rotation: the B keys sign, all at once, each published for exactly publish_ahead.
    ctx.clock.set(start + 30 * DAY);
    const r2 = await rotateDue(ctx);
    expect(sorted(r2.promoted)).toEqual(sorted(b));
    expect(sorted(r2.retired)).toEqual(sorted(a));
    for (const kid of b) {
      const row = ctx.keys.store.get(kid)!;
      expect(row.activated_at! - row.created_at).toBe(3600);
    }
    const firstOfB = await Promise.all(SIGNING_ALGS.map((alg) => sign(ctx, alg)));
    expect(sorted(firstOfB.map((t) => t.kid))).toEqual(sorted(b));
    expect((await kids(ctx)).slice(0, 3)).toEqual(kidsIn(ctx, 'active'));
    expect((await kids(ctx)).slice(3)).toEqual(a);
    await assertConsistent(ctx);
    for (const kid of a)
      expect(ctx.keys.store.get(kid)!).toMatchObject({
        state: 'retired',
        remove_after: unix(ctx.clock) + 15 * 60 + 60,
      });

    // A's last tokens verify right to the end of their life (exp + 60 s skew)...
    ctx.clock.set(start + 30 * DAY - 1000 + 15 * MIN + MIN - 1000);
    await rotateDue(ctx);
    for (const t of lastOfA) expect(await verifies(ctx, t.jwt)).toBe(true);
    // ...and the A keys stay published until token_ttl + 60 s after they stopped signing.
    ctx.clock.set(start + 30 * DAY + 15 * MIN + MIN - 1000);
    await rotateDue(ctx);
    for (const kid of a) {
      expect(await kids(ctx)).toContain(kid);
      expect(existsSync(keyPath(ctx, kid))).toBe(true);
    }

    // Then they leave the JWKS together and their files are deleted.
    ctx.clock.advance(1000);
    const r3 = await rotateDue(ctx);
    expect(sorted(r3.removed)).toEqual(sorted(a));
    expect(sorted((await kids(ctx)) as string[])).toEqual(sorted(b));
    for (const kid of a) expect(existsSync(keyPath(ctx, kid))).toBe(false);
    for (const alg of SIGNING_ALGS) expect(await verifies(ctx, (await sign(ctx, alg)).jwt)).toBe(true);
    await assertConsistent(ctx);

    // The cycle repeats from B's activation.
    ctx.clock.set(start + 60 * DAY - HOUR);
    const c = (await rotateDue(ctx)).published;
    expect(c).toHaveLength(3);
    ctx.clock.set(start + 60 * DAY);
    const r4 = await rotateDue(ctx);
    expect(sorted(r4.promoted)).toEqual(sorted(c));
    expect(sorted(r4.retired)).toEqual(sorted(b));
    await assertConsistent(ctx);

    const actions = listAudit(ctx.db).map((e) => `${e.actor} ${e.action} ${e.target}`);
    for (const kid of b) {
      expect(actions).toContain(`system signing_key.publish ${kid}`);
      expect(actions).toContain(`system signing_key.rotate ${kid}`);
    }
    for (const kid of a) expect(actions).toContain(`system signing_key.remove ${kid}`);
  });

  test('next keys published late are not promoted before publish_ahead has passed', async () => {
    ctx = await testContext({ extra: 'rotate_every = "1d"\npublish_ahead = "2h"' });
    const a = ctx.keys.store.active('ES256')!.kid;
    // The scheduler was down: the first run after rotate_every finds no next key.
    ctx.clock.advance(3 * 86_400_000);
    const r = await rotateDue(ctx);
    expect(r.promoted).toEqual([]);
    const b = ctx.keys.store.nextSet().find((k) => k.alg === 'ES256')!.kid;
    expect(r.published).toContain(b);
    expect((await sign(ctx, 'ES256')).kid).toBe(a);
    ctx.clock.advance(2 * HOUR - 1000);
    expect((await rotateDue(ctx)).promoted).toEqual([]);
    expect((await sign(ctx, 'ES256')).kid).toBe(a);
    ctx.clock.advance(1000);
    expect((await rotateDue(ctx)).promoted).toContain(b);
    expect((await sign(ctx, 'ES256')).kid).toBe(b);
  });

  test('a rotation that waited for the keys lock dates its retirements from when it promotes', async () => {
    ctx = await testContext({ extra: 'rotate_every = "1d"\npublish_ahead = "1h"' });
    const start = ctx.clock.now().getTime();
    ctx.clock.set(start + DAY - HOUR);
    await rotateDue(ctx);
    ctx.clock.set(start + DAY);
    // Another change of the key set holds the lock while 20 s pass.
    const { promise: released, resolve: release } = Promise.withResolvers<void>();
    const held = withKeysLock(ctx, () => released);
    const rotation = rotateDue(ctx);
    ctx.clock.advance(20_000);
    release();
    await held;
    const { promoted, retired } = await rotation;
    expect(promoted).toHaveLength(3);
    const promotedAt = unix(ctx.clock);
    for (const kid of retired) {
      const row = ctx.keys.store.get(kid)!;
      expect(row.retired_at).toBe(promotedAt);
      expect(row.remove_after).toBe(promotedAt + timings(ctx).keepRetired);
    }
  });

  test('a set missing one next key is completed first, and promoted whole once the newest has been published for publish_ahead', async () => {
    ctx = await testContext({ extra: 'rotate_every = "1d"\npublish_ahead = "1h"' });
    const start = ctx.clock.now().getTime();
    ctx.clock.set(start + DAY - HOUR);
    await rotateDue(ctx);
    // An operator retires the next EdDSA key (it never signed): the set lacks one.
    const gone = ctx.keys.store.nextSet().find((k) => k.alg === 'EdDSA')!.kid;
    const { retireKey } = await import('../../src/keys/key-admin.ts');
    await retireKey(ctx, gone, { remove: true });
    ctx.clock.advance(30 * MIN);
    const refill = await rotateDue(ctx);
    expect(refill.published).toHaveLength(1);
    expect(ctx.keys.store.get(refill.published[0]!)!.alg).toBe('EdDSA');
    // Rotation time: RS256 and ES256 have waited long enough, the new EdDSA key has not.
    ctx.clock.set(start + DAY);
    expect((await rotateDue(ctx)).promoted).toEqual([]);
    ctx.clock.set(start + DAY + 30 * MIN);
    const r = await rotateDue(ctx);
    expect(sorted(r.promoted)).toEqual(sorted(ctx.keys.store.actives().map((k) => k.kid)));
    expect(r.promoted).toHaveLength(3);
    await assertConsistent(ctx);
  });

  test('a lost next key row is replaced: promotion never happens without a published successor', async () => {
    ctx = await testContext({ extra: 'rotate_every = "1d"\npublish_ahead = "1h"' });
    const a = kidsIn(ctx, 'active');
    ctx.clock.advance(2 * 86_400_000);
    for (let i = 0; i < 3; i++) {
      await rotateDue(ctx);
      expect(kidsIn(ctx, 'active')).toEqual(a);
      await assertConsistent(ctx);
      ctx.clock.advance(10 * MIN);
    }
  });
});

describe('scheduled job', () => {
  test('runs every minute and at start, and rotates when due', async () => {
    ctx = await testContext({ extra: 'rotate_every = "1d"\npublish_ahead = "1h"' });
    const job = keysJobs.find((j) => j.name === 'keys.rotate')!;
    expect(job.runAtStart).toBe(true);
    const [t1, t2] = new Cron(job.schedule, { paused: true }).nextRuns(2);
    expect(t2!.getTime() - t1!.getTime()).toBe(MIN);
    await job.run(ctx);
    expect(ctx.keys.store.nextSet()).toEqual([]);
    ctx.clock.advance(DAY - HOUR);
    await job.run(ctx);
    expect(ctx.keys.store.nextSet()).toHaveLength(3);
    await assertConsistent(ctx);
  });
});

test('a lifetime lowered after a key signed does not shorten how long the key stays published', async () => {
  ctx = await testContext();
  const first = kidsIn(ctx, 'active');
  // The operator lowers proof_ttl from 30 days to one and restarts, on the same database and keys.
  const lowered = await createContext(
    { ...ctx.config, assurance: { ...ctx.config.assurance, proof_ttl: DAY } },
    { clock: ctx.clock, log: silentLogger },
  );
  try {
    await publishNext(lowered, unix(ctx.clock), 'system');
    const done = promote(lowered, lowered.keys.store.nextSet(), unix(ctx.clock), 'system')!;
    expect(sorted(done.retired)).toEqual(sorted(first));
    // Proofs the old keys signed before the restart live 30 days: the keys stay published as long.
    expect(done.removeAfter - unix(ctx.clock)).toBe(30 * 86_400 + 60);
    // A key that only ever signed under the lowered lifetime is kept for that.
    await publishNext(lowered, unix(ctx.clock), 'system');
    expect(promote(lowered, lowered.keys.store.nextSet(), unix(ctx.clock), 'system')!.removeAfter).toBe(
      unix(ctx.clock) + 86_400 + 60,
    );
  } finally {
    lowered.keys.close();
    lowered.db.close();
  }
});

describe('crash safety: the JWKS always holds the active key', () => {
  test('key file written but row never inserted: ignored by the JWKS, swept after the grace period', async () => {
    ctx = await testContext();
    const a = kidsIn(ctx, 'active');
    const now = unix(ctx.clock);
    const orphan = await ctx.keys.files.generate('ES256', now, ctx.keys.databaseId());
    expect(keyFilesOnDisk(ctx)).toContain(orphan.kid);
    expect(await kids(ctx)).toEqual(a);
    await assertConsistent(ctx);

    // Still young: it might be a write whose row is about to be inserted.
    ctx.clock.advance((ORPHAN_GRACE_SECONDS - 1) * 1000);
    expect((await rotateDue(ctx)).orphansRemoved).toEqual([]);
    expect(existsSync(keyPath(ctx, orphan.kid))).toBe(true);

    ctx.clock.advance(1000);
    expect((await rotateDue(ctx)).orphansRemoved).toEqual([orphan.kid]);
    expect(keyFilesOnDisk(ctx)).toEqual(sorted(a));
    await assertConsistent(ctx);
  });

  test('key files another database wrote, or that name none, are never swept', async () => {
    ctx = await testContext();
    const now = unix(ctx.clock);
    const foreign = await ctx.keys.files.generate('ES256', now, 'another-database');
    const unnamed = await ctx.keys.files.generate('ES256', now, ctx.keys.databaseId());
    // As a release before database ids wrote it.
    const file = keyPath(ctx, unnamed.kid);
    const { database: _, ...jwk } = JSON.parse(readFileSync(file, 'utf8'));
    writeFileSync(file, JSON.stringify(jwk));
    ctx.clock.advance(DAY);
    expect((await rotateDue(ctx)).orphansRemoved).toEqual([]);
    expect(keyFilesOnDisk(ctx)).toEqual(expect.arrayContaining([foreign.kid, unnamed.kid]));
  });

  test('a new database started on the keys directory of another leaves that one its keys', async () => {
    ctx = await testContext();
    const first = sorted(ctx.keys.store.list().map((r) => r.kid));
    const other = tempDir();
    const config = testConfig(other.dir);
    const second = await createContext(
      { ...config, keys: { ...config.keys, dir: join(ctx.dir, 'keys') } },
      { clock: ctx.clock, log: silentLogger },
    );
    try {
      ctx.clock.advance(DAY);
      const removed = (await rotateDue(second)).orphansRemoved;
      expect(removed.filter((kid) => first.includes(kid))).toEqual([]);
      expect(keyFilesOnDisk(ctx)).toEqual(expect.arrayContaining(first));
      expect((await verifyKeyBinding(ctx.db, keyMaterialOnDisk(ctx.config))).problems).toEqual([]);
    } finally {
      second.keys.close();
      second.db.close();
      other.cleanup();
    }
  });

  test('the sweep leaves instance secrets and in-flight temporary files alone', async () => {
    ctx = await testContext();
    const { instanceSecret } = await import('../../src/keys/instance-secrets.ts');
    await instanceSecret(ctx.config, 'pairwise', '');
    const tmp = join(ctx.dir, 'keys', 'abc.jwk.json.1234.tmp');
    await Bun.write(tmp, '{"kty":');
    ctx.clock.advance(DAY);
    await rotateDue(ctx);
    expect(existsSync(join(ctx.dir, 'keys', 'pairwise.secret'))).toBe(true);
    expect(existsSync(tmp)).toBe(true);
    await assertConsistent(ctx);
  });

  test('retired row deleted but file not yet removed: the key is gone from the JWKS and the file is swept', async () => {
    ctx = await testContext({ extra: 'rotate_every = "1d"\npublish_ahead = "1h"' });
    const a = ctx.keys.store.active('EdDSA')!.kid;
    ctx.clock.advance(DAY - HOUR);
    await rotateDue(ctx);
    ctx.clock.advance(HOUR);
    await rotateDue(ctx);
    // The crash: the row is deleted, the process dies before deleting the file.
    ctx.keys.store.delete(a);
    ctx.keys.invalidate();
    expect(await kids(ctx)).not.toContain(a);
    await assertConsistent(ctx);
    expect((await rotateDue(ctx)).orphansRemoved).toEqual([a]);
    expect(keyFilesOnDisk(ctx)).toEqual(sorted(ctx.keys.store.list().map((r) => r.kid)));
  });

  test('a promotion interrupted halfway is rolled back whole', async () => {
    ctx = await testContext();
    const a = kidsIn(ctx, 'active');
    await publishNext(ctx, unix(ctx.clock), 'system');
    const b = kidsIn(ctx, 'next');
    // The last algorithm's activation fails, as a crash would stop it after the others were promoted.
    const recover = refuseWrites(ctx.db, 'signing_keys', {
      on: 'UPDATE',
      when: "NEW.state = 'active' AND NEW.alg = 'EdDSA'",
      message: 'crash',
    });
    const next = ctx.keys.store.nextSet();
    expect(() => promote(ctx, next, unix(ctx.clock), 'system')).toThrow('crash');
    expect(kidsIn(ctx, 'active')).toEqual(a);
    expect(kidsIn(ctx, 'next')).toEqual(b);
    ctx.keys.invalidate();
    expect(await kids(ctx)).toEqual([...a, ...b]);
    await assertConsistent(ctx);
    recover();
    expect(promote(ctx, next, unix(ctx.clock), 'system')).toMatchObject({
      promoted: expect.arrayContaining(b),
      retired: expect.arrayContaining(a),
    });
    expect(kidsIn(ctx, 'active')).toEqual(b);
    await assertConsistent(ctx);
  });

  test('every state a rotation passes through keeps the active key published', async () => {
    // Proofs shorter-lived than tokens: the tokens decide when a retired key goes.
    ctx = await testContext({
      extra: 'rotate_every = "1d"\npublish_ahead = "1h"\n[assurance]\nproof_ttl = "5m"',
    });
    const seen = new Set<string>();
    // Four days and half an hour, so the key retired on the fourth day has had its tokens expire.
    for (let i = 0; i < 4 * 24 * 6 + 3; i++) {
      ctx.clock.advance(10 * MIN);
      const r = await rotateDue(ctx);
      await assertConsistent(ctx);
      for (const k of [...r.published, ...r.promoted, ...r.removed]) seen.add(k);
      // Files on disk are exactly the rows: nothing leaks.
      expect(keyFilesOnDisk(ctx)).toEqual(
        ctx.keys.store
          .list()
          .map((x) => x.kid)
          .sort(),
      );
    }
    expect(ctx.keys.store.list().filter((r) => r.state === 'retired').length).toBe(0);
    // One initial set and four daily successors, each published, promoted and (but the last) removed.
    expect(seen.size).toBe(5 * 3);
    // 579 rotation rounds, each checked: on PostgreSQL every statement is a round trip.
  }, 30_000);

  test('two processes publishing at once leave one next key per algorithm and no stray file', async () => {
    ctx = await testContext();
    const now = unix(ctx.clock);
    const [x, y] = await Promise.all([publishNext(ctx, now, 'system'), publishNext(ctx, now, 'system')]);
    expect(sorted([...x, ...y])).toEqual(sorted(kidsIn(ctx, 'next')));
    expect(
      ctx.keys.store
        .list()
        .filter((r) => r.state === 'next')
        .map((r) => r.alg)
        .sort(),
    ).toEqual(['ES256', 'EdDSA', 'RS256']);
    expect(keyFilesOnDisk(ctx)).toEqual(
      ctx.keys.store
        .list()
        .map((r) => r.kid)
        .sort(),
    );
  });
});

describe('key files', () => {
  test('keys directory is 0700, key files 0600; RSA of at least 2048 bits, EC P-256, Ed25519', async () => {
    ctx = await testContext();
    await publishNext(ctx, unix(ctx.clock), 'system');
    expect(statSync(join(ctx.dir, 'keys')).mode & 0o777).toBe(0o700);
    const names = keyFilesOnDisk(ctx);
    expect(names.length).toBe(6);
    for (const kid of names) expect(statSync(keyPath(ctx, kid)).mode & 0o777).toBe(0o600);
    const keys = (await jwks(ctx)).keys;
    expect(keys.map((k) => k.alg)).toEqual(['RS256', 'ES256', 'EdDSA', 'RS256', 'ES256', 'EdDSA']);
    for (const k of keys) {
      expect(k.use).toBe('sig');
      expect(k.d).toBeUndefined();
      if (k.alg === 'RS256') {
        expect(k.kty).toBe('RSA');
        expect(Buffer.from(k.n!, 'base64url').length * 8).toBeGreaterThanOrEqual(2048);
      } else if (k.alg === 'ES256') expect(k).toMatchObject({ kty: 'EC', crv: 'P-256' });
      else expect(k).toMatchObject({ kty: 'OKP', crv: 'Ed25519' });
    }
  });

  test('a key shorter than 2048 bits is refused by the config and by the key store', async () => {
    ctx = await testContext();
    const { parseConfig } = await import('../../src/config/load.ts');
    expect(() => parseConfig('[keys]\nrsa_bits = 1024')).toThrow('rsa_bits');
    expect(ctx.keys.files.generate('RS256', 0, ctx.keys.databaseId(), 1024)).rejects.toThrow('at least 2048');
  });

  test('the kid is the RFC 7638 thumbprint of the public key', async () => {
    ctx = await testContext();
    const { calculateJwkThumbprint } = await import('jose');
    for (const k of (await jwks(ctx)).keys) expect(await calculateJwkThumbprint(k)).toBe(k.kid!);
  });
});
