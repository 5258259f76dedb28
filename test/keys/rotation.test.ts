import { afterEach, describe, expect, test } from 'bun:test';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Cron } from 'croner';
import { createLocalJWKSet, type JWK, jwtVerify, SignJWT } from 'jose';
import { listAudit } from '../../src/audit/audit.store.ts';
import type { AppContext } from '../../src/context.ts';
import { keysJobs } from '../../src/keys/jobs.ts';
import { ORPHAN_GRACE_SECONDS, promote, publishNext, rotateDue } from '../../src/keys/rotation.ts';
import { unix } from '../../src/platform/clock.ts';
import { type TestContext, testContext } from '../helpers/context.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

let ctx: TestContext;
afterEach(() => ctx?.cleanup());

async function jwks(c: AppContext): Promise<{ keys: JWK[] }> {
  return JSON.parse(await c.keys.jwksBody());
}
const kids = async (c: AppContext) => (await jwks(c)).keys.map((k) => k.kid);

/** The invariant every step must keep: the active key is published, and every row has its file. */
async function assertConsistent(c: TestContext) {
  const active = c.keys.store.active();
  expect(active).toBeDefined();
  expect(await kids(c)).toContain(active!.kid);
  expect((await c.keys.signingKey()).kid).toBe(active!.kid);
  for (const row of c.keys.store.list()) expect(existsSync(keyPath(c, row.kid))).toBe(true);
}
const keyPath = (c: TestContext, kid: string) => join(c.dir, 'keys', `${kid}.jwk.json`);
const keyFilesOnDisk = (c: TestContext) =>
  readdirSync(join(c.dir, 'keys'))
    .filter((f) => f.endsWith('.jwk.json'))
    .map((f) => f.replace('.jwk.json', ''))
    .sort();

/** An ID-token-like JWT signed the way the token endpoint signs. */
async function sign(c: AppContext, ttlSeconds = 900) {
  const { kid, key } = await c.keys.signingKey();
  const now = unix(c.clock);
  const jwt = await new SignJWT({ sub: 's' })
    .setProtectedHeader({ alg: 'RS256', kid })
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
  test('next key published publish_ahead before it signs, promoted, old key kept until tokens expire, then dropped', async () => {
    ctx = await testContext({
      // A proof_ttl shorter than token_ttl: the tokens decide how long a retired key stays.
      extra:
        'rotate_every = "30d"\npublish_ahead = "1h"\n[oauth]\ntoken_ttl = "15m"\n[assurance]\nproof_ttl = "10m"',
    });
    const start = ctx.clock.now().getTime();
    const a = ctx.keys.store.active()!.kid;
    expect(await kids(ctx)).toEqual([a]);

    // Nothing is due while the active key is young.
    expect(await rotateDue(ctx)).toEqual({ removed: [], orphansRemoved: [] });
    ctx.clock.set(start + 30 * DAY - HOUR - 1000);
    expect((await rotateDue(ctx)).published).toBeUndefined();
    await assertConsistent(ctx);

    // publish_ahead before the rotation: the next key appears in the JWKS but does not sign.
    ctx.clock.advance(1000);
    const r1 = await rotateDue(ctx);
    const b = r1.published!;
    expect(b).toBeDefined();
    expect(b).not.toBe(a);
    expect(await kids(ctx)).toEqual([a, b]);
    expect((await sign(ctx)).kid).toBe(a);
    await assertConsistent(ctx);

    // Running again publishes nothing more.
    expect((await rotateDue(ctx)).published).toBeUndefined();
    expect(ctx.keys.store.list().length).toBe(2);

    // One second before the rotation A still signs.
    ctx.clock.set(start + 30 * DAY - 1000);
    await rotateDue(ctx);
    const lastOfA = await sign(ctx);
    expect(lastOfA.kid).toBe(a);

    // Rotation: B signs, and it has been published for exactly publish_ahead.
    ctx.clock.set(start + 30 * DAY);
    const r2 = await rotateDue(ctx);
    expect(r2).toMatchObject({ promoted: b, retired: a });
    const rowB = ctx.keys.store.get(b)!;
    expect(rowB.activated_at! - rowB.created_at).toBe(3600);
    const firstOfB = await sign(ctx);
    expect(firstOfB.kid).toBe(b);
    expect((await kids(ctx))[0]).toBe(b);
    expect(await kids(ctx)).toContain(a);
    await assertConsistent(ctx);
    const rowA = ctx.keys.store.get(a)!;
    expect(rowA).toMatchObject({ state: 'retired', remove_after: unix(ctx.clock) + 15 * 60 + 60 });

    // A's last token verifies right to the end of its life (exp + 60 s skew)...
    ctx.clock.set(start + 30 * DAY - 1000 + 15 * MIN + MIN - 1000);
    await rotateDue(ctx);
    expect(await verifies(ctx, lastOfA.jwt)).toBe(true);
    // ...and A stays published until token_ttl + 60 s after it stopped signing.
    ctx.clock.set(start + 30 * DAY + 15 * MIN + MIN - 1000);
    await rotateDue(ctx);
    expect(await kids(ctx)).toContain(a);
    expect(existsSync(keyPath(ctx, a))).toBe(true);

    // Then A leaves the JWKS and its file is deleted.
    ctx.clock.advance(1000);
    const r3 = await rotateDue(ctx);
    expect(r3.removed).toEqual([a]);
    expect(await kids(ctx)).toEqual([b]);
    expect(existsSync(keyPath(ctx, a))).toBe(false);
    expect(await verifies(ctx, (await sign(ctx)).jwt)).toBe(true);
    await assertConsistent(ctx);

    // The cycle repeats from B's activation.
    ctx.clock.set(start + 60 * DAY - HOUR);
    const c = (await rotateDue(ctx)).published!;
    expect(await kids(ctx)).toEqual([b, c]);
    ctx.clock.set(start + 60 * DAY);
    expect(await rotateDue(ctx)).toMatchObject({ promoted: c, retired: b });
    await assertConsistent(ctx);

    const actions = listAudit(ctx.db).map((e) => `${e.actor} ${e.action} ${e.target}`);
    expect(actions).toContain(`system signing_key.publish ${b}`);
    expect(actions).toContain(`system signing_key.rotate ${b}`);
    expect(actions).toContain(`system signing_key.remove ${a}`);
  });

  test('a next key published late is not promoted before publish_ahead has passed', async () => {
    ctx = await testContext({ extra: 'rotate_every = "1d"\npublish_ahead = "2h"' });
    const a = ctx.keys.store.active()!.kid;
    // The scheduler was down: the first run after rotate_every finds no next key.
    ctx.clock.advance(3 * 86_400_000);
    const r = await rotateDue(ctx);
    expect(r.promoted).toBeUndefined();
    const b = r.published!;
    expect((await sign(ctx)).kid).toBe(a);
    ctx.clock.advance(2 * HOUR - 1000);
    expect((await rotateDue(ctx)).promoted).toBeUndefined();
    expect((await sign(ctx)).kid).toBe(a);
    ctx.clock.advance(1000);
    expect((await rotateDue(ctx)).promoted).toBe(b);
    expect((await sign(ctx)).kid).toBe(b);
  });

  test('a lost next key row is replaced: promotion never happens without a published successor', async () => {
    ctx = await testContext({ extra: 'rotate_every = "1d"\npublish_ahead = "1h"' });
    const a = ctx.keys.store.active()!.kid;
    ctx.clock.advance(2 * 86_400_000);
    for (let i = 0; i < 3; i++) {
      await rotateDue(ctx);
      expect(ctx.keys.store.active()!.kid).toBe(a);
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
    expect(ctx.keys.store.next()).toBeUndefined();
    ctx.clock.advance(DAY - HOUR);
    await job.run(ctx);
    expect(ctx.keys.store.next()).toBeDefined();
    await assertConsistent(ctx);
  });
});

describe('crash safety: the JWKS always holds the active key', () => {
  test('key file written but row never inserted: ignored by the JWKS, swept after the grace period', async () => {
    ctx = await testContext();
    const a = ctx.keys.store.active()!.kid;
    const now = unix(ctx.clock);
    const orphan = await ctx.keys.files.generate(2048, now);
    expect(keyFilesOnDisk(ctx)).toContain(orphan.kid);
    expect(await kids(ctx)).toEqual([a]);
    await assertConsistent(ctx);

    // Still young: it might be a write whose row is about to be inserted.
    ctx.clock.advance((ORPHAN_GRACE_SECONDS - 1) * 1000);
    expect((await rotateDue(ctx)).orphansRemoved).toEqual([]);
    expect(existsSync(keyPath(ctx, orphan.kid))).toBe(true);

    ctx.clock.advance(1000);
    expect((await rotateDue(ctx)).orphansRemoved).toEqual([orphan.kid]);
    expect(keyFilesOnDisk(ctx)).toEqual([a]);
    await assertConsistent(ctx);
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
    const a = ctx.keys.store.active()!.kid;
    ctx.clock.advance(DAY - HOUR);
    const b = (await rotateDue(ctx)).published!;
    ctx.clock.advance(HOUR);
    await rotateDue(ctx);
    // The crash: the row is deleted, the process dies before deleting the file.
    ctx.keys.store.delete(a);
    ctx.keys.invalidate();
    expect(await kids(ctx)).toEqual([b]);
    await assertConsistent(ctx);
    expect((await rotateDue(ctx)).orphansRemoved).toEqual([a]);
    expect(keyFilesOnDisk(ctx)).toEqual([b]);
  });

  test('a promotion interrupted halfway is rolled back whole', async () => {
    ctx = await testContext();
    const a = ctx.keys.store.active()!.kid;
    const b = await publishNext(ctx, unix(ctx.clock), 'system');
    // The second statement of the promotion fails, as a crash would stop it.
    ctx.db.sql.exec(
      "CREATE TRIGGER crash BEFORE UPDATE ON signing_keys WHEN NEW.state = 'active' BEGIN SELECT RAISE(ABORT, 'crash'); END",
    );
    expect(() => promote(ctx, b, unix(ctx.clock), 'system')).toThrow('crash');
    expect(ctx.keys.store.get(a)!.state).toBe('active');
    expect(ctx.keys.store.get(b)!.state).toBe('next');
    ctx.keys.invalidate();
    expect(await kids(ctx)).toEqual([a, b]);
    await assertConsistent(ctx);
    ctx.db.sql.exec('DROP TRIGGER crash');
    expect(promote(ctx, b, unix(ctx.clock), 'system')).toMatchObject({ promoted: b, retired: a });
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
      for (const k of [r.published, r.promoted, ...r.removed]) if (k) seen.add(k);
      // Files on disk are exactly the rows: nothing leaks.
      expect(keyFilesOnDisk(ctx)).toEqual(
        ctx.keys.store
          .list()
          .map((x) => x.kid)
          .sort(),
      );
    }
    expect(ctx.keys.store.list().filter((r) => r.state === 'retired').length).toBe(0);
    // One initial key and four daily successors, each published, promoted and (but the last) removed.
    expect(seen.size).toBe(5);
  });

  test('two processes publishing at once leave one next key and no stray file', async () => {
    ctx = await testContext();
    const now = unix(ctx.clock);
    const [x, y] = await Promise.all([publishNext(ctx, now, 'system'), publishNext(ctx, now, 'system')]);
    expect(x).toBe(y);
    expect(
      ctx.keys.store
        .list()
        .filter((r) => r.state === 'next')
        .map((r) => r.kid),
    ).toEqual([x]);
    expect(keyFilesOnDisk(ctx)).toEqual(
      ctx.keys.store
        .list()
        .map((r) => r.kid)
        .sort(),
    );
  });
});

describe('key files', () => {
  test('keys directory is 0700, key files 0600, keys RSA of at least 2048 bits', async () => {
    ctx = await testContext();
    await publishNext(ctx, unix(ctx.clock), 'system');
    expect(statSync(join(ctx.dir, 'keys')).mode & 0o777).toBe(0o700);
    const names = keyFilesOnDisk(ctx);
    expect(names.length).toBe(2);
    for (const kid of names) expect(statSync(keyPath(ctx, kid)).mode & 0o777).toBe(0o600);
    for (const k of (await jwks(ctx)).keys) {
      expect(k.kty).toBe('RSA');
      expect(Buffer.from(k.n!, 'base64url').length * 8).toBeGreaterThanOrEqual(2048);
    }
  });

  test('a key shorter than 2048 bits is refused by the config and by the key store', async () => {
    ctx = await testContext();
    const { parseConfig } = await import('../../src/config/load.ts');
    expect(() => parseConfig('[keys]\nrsa_bits = 1024')).toThrow('rsa_bits');
    expect(ctx.keys.files.generate(1024, 0)).rejects.toThrow('at least 2048');
  });

  test('the kid is the RFC 7638 thumbprint of the public key', async () => {
    ctx = await testContext();
    const { calculateJwkThumbprint } = await import('jose');
    for (const k of (await jwks(ctx)).keys) expect(await calculateJwkThumbprint(k)).toBe(k.kid!);
  });
});
