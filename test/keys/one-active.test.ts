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
const insertRow = (c: TestContext, kid: string, state: string) =>
  c.db.sql
    .prepare(
      'INSERT INTO signing_keys (kid, state, created_at, activated_at, retired_at, remove_after) VALUES (?, ?, ?, ?, NULL, NULL)',
    )
    .run(kid, state, unix(c.clock), unix(c.clock));

describe('the database holds at most one active signing key', () => {
  test('a second active row is refused however it is written', async () => {
    ctx = await testContext();
    const a = ctx.keys.store.active()!.kid;

    // Plain SQL, as a hand-run statement or a buggy code path would.
    expect(() => insertRow(ctx, 'intruder', 'active')).toThrow(/UNIQUE constraint failed/);
    // Through the store.
    expect(() =>
      ctx.keys.store.insert({
        kid: 'intruder',
        state: 'active',
        created_at: unix(ctx.clock),
        activated_at: unix(ctx.clock),
        retired_at: null,
        remove_after: null,
      }),
    ).toThrow(/UNIQUE constraint failed/);
    // By activating a next key while the active one is still active.
    const b = await publishNext(ctx, unix(ctx.clock), 'system');
    expect(() => ctx.keys.store.setState(b, 'active', { activated_at: unix(ctx.clock) })).toThrow(
      /UNIQUE constraint failed/,
    );
    // Same inside a transaction: the whole transaction is rolled back.
    expect(() =>
      ctx.db.sql.transaction(() => {
        ctx.keys.store.setState(b, 'active', { activated_at: unix(ctx.clock) });
        ctx.keys.store.setState(a, 'retired', { retired_at: unix(ctx.clock), remove_after: unix(ctx.clock) });
      }),
    ).toThrow(/UNIQUE constraint failed/);

    expect(activeKids(ctx)).toEqual([a]);
    expect(ctx.keys.store.get(b)!.state).toBe('next');
    expect(ctx.keys.store.get('intruder')).toBeUndefined();
  });

  test('only the active state is unique: several retired or next rows are allowed', async () => {
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
    ).toEqual(['active', 'next', 'next', 'retired', 'retired']);
    const index = ctx.db.sql
      .prepare<{ sql: string }>(
        "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'signing_keys'",
      )
      .all()
      .map((r) => r.sql)
      .join('\n');
    expect(index).toContain('UNIQUE');
    expect(index).toContain("WHERE state = 'active'");
  });

  test('scheduled rotation, manual rotation and retirement still promote (old key retired first)', async () => {
    ctx = await testContext({ extra: 'rotate_every = "1d"\npublish_ahead = "1h"' });
    const a = ctx.keys.store.active()!.kid;

    // Scheduled: published an hour ahead, promoted after a day.
    ctx.clock.advance(DAY - HOUR);
    const b = (await rotateDue(ctx)).published!;
    ctx.clock.advance(HOUR);
    expect(await rotateDue(ctx)).toMatchObject({ promoted: b, retired: a });
    expect(activeKids(ctx)).toEqual([b]);

    // Manual, waiting for publish_ahead: publishes first, promotes an hour later.
    const waiting = await rotateManually(ctx, { immediate: false });
    expect(waiting.promoted).toBe(false);
    ctx.clock.advance(HOUR);
    const c = await rotateManually(ctx, { immediate: false });
    expect(c).toMatchObject({ promoted: true, retired: expect.arrayContaining([a, b]) });
    expect(activeKids(ctx)).toEqual([c.active]);

    // Immediate (compromise).
    const d = await rotateManually(ctx, { immediate: true });
    expect(d.promoted).toBe(true);
    expect(d.active).not.toBe(c.active);
    expect(activeKids(ctx)).toEqual([d.active]);

    // Retiring the active key promotes its published successor in the same transaction.
    ctx.clock.advance(HOUR);
    const successor = ctx.keys.store.next()!.kid;
    const retired = await retireKey(ctx, d.active, { remove: false });
    expect(retired).toMatchObject({ kid: d.active, state: 'retired', promoted: successor });
    expect(activeKids(ctx)).toEqual([successor]);

    // A promotion of a key that is not "next" changes nothing rather than making a second active key.
    expect(promote(ctx, d.active, unix(ctx.clock), 'system')).toBeUndefined();
    expect(activeKids(ctx)).toEqual([successor]);
    expect((await ctx.keys.signingKey()).kid).toBe(successor);
  });

  test('two processes making the first key at once leave one active key and no stray file', async () => {
    ctx = await testContext();
    // Start over from a database without an active key, as on first start.
    const first = ctx.keys.store.active()!.kid;
    ctx.keys.store.delete(first);
    await ctx.keys.files.remove(first);
    const p1 = new KeyService(ctx.db, ctx.config, ctx.clock);
    const p2 = new KeyService(ctx.db, ctx.config, ctx.clock);
    await Promise.all([p1.ensureActive(), p2.ensureActive()]);
    const kids = activeKids(ctx);
    expect(kids).toHaveLength(1);
    const onDisk = readdirSync(join(ctx.dir, 'keys')).filter((f) => f.endsWith('.jwk.json'));
    expect(onDisk).toEqual([`${kids[0]}.jwk.json`]);
    expect(existsSync(join(ctx.dir, 'keys', `${first}.jwk.json`))).toBe(false);
  });
});

describe('a removed key signs nothing more', () => {
  test('after "keys retire --remove" in another process, the server signs with the successor at once', async () => {
    ctx = await testContext();
    // The server's key service has signed (and cached the key) just before the operator acts.
    const server = new KeyService(ctx.db, ctx.config, ctx.clock);
    const compromised = (await server.signingKey()).kid;
    // The operator's process: promote at once, then drop the compromised key.
    const r = await rotateManually(ctx, { immediate: true });
    await retireKey(ctx, compromised, { remove: true });
    // No cache interval passes: the very next signature uses the new key.
    const now = await server.signingKey();
    expect(now.kid).toBe(r.active);
    expect(now.kid).not.toBe(compromised);
  });
});
