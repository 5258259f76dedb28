import { afterEach, describe, expect, test } from 'bun:test';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { retireKey, rotateManually } from '../../src/keys/key-admin.ts';
import { promote, publishNext, rotateDue } from '../../src/keys/rotation.ts';
import { KeyService } from '../../src/keys/signing-keys.ts';
import { unix } from '../../src/platform/clock.ts';
import { type TestContext, testContext } from '../helpers/context.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let ctx: TestContext;
afterEach(() => ctx?.cleanup());

const activeKids = (c: TestContext) =>
  c.keys.store
    .list()
    .filter((r) => r.state === 'active')
    .map((r) => r.kid);
// SQLite's and PostgreSQL's words for the same refusal.
const UNIQUE = /UNIQUE constraint failed|duplicate key value violates unique constraint/;
const activeRs256 = (c: TestContext) => c.keys.store.active('RS256')!.kid;
// Without an alg, as a statement written before there were several: the column's default, RS256.
const insertRow = (c: TestContext, kid: string, state: string) =>
  c.db.sql
    .prepare(
      'INSERT INTO signing_keys (kid, state, created_at, activated_at, retired_at, remove_after) VALUES (?, ?, ?, ?, NULL, NULL)',
    )
    .run(kid, state, unix(c.clock), unix(c.clock));

describe('the database holds at most one active signing key per algorithm', () => {
  test('a second active row of an algorithm is refused however it is written', async () => {
    ctx = await testContext();
    const a = activeRs256(ctx);
    const others = activeKids(ctx).filter((k) => k !== a);
    expect(others).toHaveLength(2);

    // Plain SQL, as a hand-run statement or a buggy code path would.
    expect(() => insertRow(ctx, 'intruder', 'active')).toThrow(UNIQUE);
    // Through the store.
    expect(() =>
      ctx.keys.store.insert({
        kid: 'intruder',
        alg: 'RS256',
        state: 'active',
        created_at: unix(ctx.clock),
        activated_at: unix(ctx.clock),
        retired_at: null,
        remove_after: null,
        longest_lifetime: null,
      }),
    ).toThrow(UNIQUE);
    // By activating a next key while the active one is still active.
    const b = (await publishNext(ctx, unix(ctx.clock), 'system'))[0]!;
    expect(ctx.keys.store.get(b)!.alg).toBe('RS256');
    expect(() => ctx.keys.store.setState(b, 'active', { activated_at: unix(ctx.clock) })).toThrow(UNIQUE);
    // Same inside a transaction: the whole transaction is rolled back.
    expect(() =>
      ctx.db.sql.transaction(() => {
        ctx.keys.store.setState(b, 'active', { activated_at: unix(ctx.clock) });
        ctx.keys.store.setState(a, 'retired', { retired_at: unix(ctx.clock), remove_after: unix(ctx.clock) });
      }),
    ).toThrow(UNIQUE);

    // An active EC key does not make room for a second active ES256 one either.
    const es = ctx.keys.store.active('ES256')!;
    expect(() => ctx.keys.store.insert({ ...es, kid: 'intruder-ec', activated_at: unix(ctx.clock) })).toThrow(
      UNIQUE,
    );

    expect(activeKids(ctx).sort()).toEqual([a, ...others].sort());
    expect(ctx.keys.store.get(b)!.state).toBe('next');
    expect(ctx.keys.store.get('intruder')).toBeUndefined();
  });

  test('only the active state is unique per algorithm: several retired or next rows are allowed', async () => {
    ctx = await testContext();
    insertRow(ctx, 'r1', 'retired');
    insertRow(ctx, 'r2', 'retired');
    insertRow(ctx, 'n1', 'next');
    insertRow(ctx, 'n2', 'next');
    expect(
      ctx.keys.store
        .list()
        .map((r) => r.state)
        .sort(),
    ).toEqual(['active', 'active', 'active', 'next', 'next', 'retired', 'retired']);
    const postgres = ctx.db.engine === 'postgres';
    const index = ctx.db.sql
      .prepare<{ sql: string }>(
        postgres
          ? "SELECT indexdef AS sql FROM pg_indexes WHERE tablename = 'signing_keys'"
          : "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'signing_keys'",
      )
      .all()
      .map((r) => r.sql)
      .join('\n');
    expect(index).toContain('UNIQUE');
    expect(index).toContain(
      postgres ? "(alg) WHERE (state = 'active'::text)" : "(`alg`) WHERE state = 'active'",
    );
  });

  test('scheduled rotation, manual rotation and retirement still promote (old keys retired first)', async () => {
    ctx = await testContext({ extra: 'rotate_every = "1d"\npublish_ahead = "1h"' });
    const a = activeKids(ctx);
    const sorted = (kids: (string | undefined)[]) => [...kids].sort();

    // Scheduled: published an hour ahead, promoted after a day.
    ctx.clock.advance(DAY - HOUR);
    const b = (await rotateDue(ctx)).published;
    expect(b).toHaveLength(3);
    ctx.clock.advance(HOUR);
    const r = await rotateDue(ctx);
    expect(sorted(r.promoted)).toEqual(sorted(b));
    expect(sorted(r.retired)).toEqual(sorted(a));
    expect(sorted(activeKids(ctx))).toEqual(sorted(b));

    // Manual, waiting for publish_ahead: publishes first, promotes an hour later.
    const waiting = await rotateManually(ctx, { immediate: false });
    expect(waiting.promoted).toBe(false);
    ctx.clock.advance(HOUR);
    const c = await rotateManually(ctx, { immediate: false });
    expect(c).toMatchObject({ promoted: true, retired: expect.arrayContaining([...a, ...b]) });
    expect(sorted(activeKids(ctx))).toEqual(sorted(Object.values(c.active)));

    // Immediate (compromise).
    const d = await rotateManually(ctx, { immediate: true });
    expect(d.promoted).toBe(true);
    expect(d.active.RS256).not.toBe(c.active.RS256);
    expect(sorted(activeKids(ctx))).toEqual(sorted(Object.values(d.active)));

    // Retiring an active key promotes the published successors, together, in the same transaction.
    ctx.clock.advance(HOUR);
    const successors = ctx.keys.store.nextSet();
    const successor = successors.find((k) => k.alg === 'ES256')!.kid;
    const retired = await retireKey(ctx, d.active.ES256!, { remove: false });
    expect(retired).toMatchObject({ kid: d.active.ES256, state: 'retired', promoted: successor });
    expect(sorted(activeKids(ctx))).toEqual(sorted(successors.map((k) => k.kid)));
    expect(ctx.keys.store.get(d.active.RS256!)!.state).toBe('retired');

    // A promotion of keys that are not "next" changes nothing rather than making a second active key.
    const stale = ctx.keys.store
      .actives()
      .map((k) => ({ ...k, kid: k.kid === successor ? d.active.ES256! : k.kid }));
    expect(promote(ctx, stale, unix(ctx.clock), 'system')).toBeUndefined();
    expect(sorted(activeKids(ctx))).toEqual(sorted(successors.map((k) => k.kid)));
    expect((await ctx.keys.signingKey('ES256')).kid).toBe(successor);
  });

  test('two processes making the first keys at once leave one active key per algorithm and no stray file', async () => {
    ctx = await testContext();
    // Start over from a database without an active key, as on first start.
    const first = activeKids(ctx);
    for (const kid of first) {
      ctx.keys.store.delete(kid);
      await ctx.keys.files.remove(kid);
    }
    const p1 = new KeyService(ctx.db, ctx.config, ctx.clock);
    const p2 = new KeyService(ctx.db, ctx.config, ctx.clock);
    await Promise.all([p1.ensureActive(), p2.ensureActive()]);
    expect(
      ctx.keys.store
        .actives()
        .map((k) => k.alg)
        .sort(),
    ).toEqual(['ES256', 'EdDSA', 'RS256']);
    const onDisk = readdirSync(join(ctx.dir, 'keys')).filter((f) => f.endsWith('.jwk.json'));
    expect(onDisk.sort()).toEqual(
      activeKids(ctx)
        .map((kid) => `${kid}.jwk.json`)
        .sort(),
    );
    for (const kid of first) expect(existsSync(join(ctx.dir, 'keys', `${kid}.jwk.json`))).toBe(false);
  });
});

describe('a removed key signs nothing more', () => {
  test('after "keys retire --remove" in another process, the server signs with the successor at once', async () => {
    ctx = await testContext();
    // The server's key service has signed (and cached the key) just before the operator acts.
    const server = new KeyService(ctx.db, ctx.config, ctx.clock);
    const compromised = (await server.signingKey('EdDSA')).kid;
    // The operator's process: promote at once, then drop the compromised key.
    const r = await rotateManually(ctx, { immediate: true });
    await retireKey(ctx, compromised, { remove: true });
    // No cache interval passes: the very next signature uses the new key.
    const now = await server.signingKey('EdDSA');
    expect(now.kid).toBe(r.active.EdDSA!);
    expect(now.kid).not.toBe(compromised);
  });
});
