import { afterEach, describe, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { listAudit } from '../../src/audit/audit.store.ts';
import { createContext } from '../../src/bootstrap.ts';
import { parseConfig } from '../../src/config/load.ts';
import type { SigningAlg } from '../../src/keys/signing-algs.ts';
import { silentLogger } from '../../src/log.ts';
import { cli } from '../helpers/cli.ts';
import { tempDir, testToml } from '../helpers/context.ts';

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

/** A migrated database with its first keys, and a config file for the CLI. */
async function setup(extra = '') {
  const t = tempDir('verity-keys-cli');
  cleanup = t.cleanup;
  const toml = testToml(t.dir, extra);
  const configPath = join(t.dir, 'verity.toml');
  await Bun.write(configPath, toml);
  const ctx = await createContext(parseConfig(toml), { log: silentLogger });
  /** The first active kid of each algorithm. */
  const first = Object.fromEntries(ctx.keys.store.actives().map((r) => [r.alg, r.kid])) as Record<
    SigningAlg,
    string
  >;
  ctx.db.close();
  // The config before any "--": what follows it is operands only.
  const run = (...args: string[]) => {
    const end = args.includes('--') ? args.indexOf('--') : args.length;
    return cli(...args.slice(0, end), '--config', configPath, ...args.slice(end));
  };
  const audit = async () => {
    const c = await createContext(parseConfig(toml), { log: silentLogger, migrate: false });
    try {
      return listAudit(c.db).map((e) => `${e.actor} ${e.action} ${e.target}`);
    } finally {
      c.db.close();
    }
  };
  /** The CLI runs on the real clock: moves the next keys' publication back instead of waiting publish_ahead. */
  const publishedAgo = async (seconds: number) => {
    const c = await createContext(parseConfig(toml), { log: silentLogger, migrate: false });
    try {
      c.db.sql
        .prepare("UPDATE signing_keys SET created_at = created_at - ? WHERE state = 'next'")
        .run(seconds);
    } finally {
      c.db.close();
    }
  };
  return { dir: t.dir, first, run, audit, publishedAgo };
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const ANY_SET = { RS256: expect.any(String), ES256: expect.any(String), EdDSA: expect.any(String) };

describe('verity keys', () => {
  test('list shows each key with its algorithm, state and ISO times', async () => {
    const s = await setup();
    const r = await s.run('keys', 'list', '--json');
    expect(r.code).toBe(0);
    const row = (alg: SigningAlg) => ({
      kid: s.first[alg],
      alg,
      state: 'active',
      createdAt: expect.stringMatching(ISO),
      activatedAt: expect.stringMatching(ISO),
      retiredAt: null,
      removeAfter: null,
    });
    expect(r.json.keys).toHaveLength(3);
    expect(r.json.keys).toEqual(expect.arrayContaining((['RS256', 'ES256', 'EdDSA'] as const).map(row)));
    const human = await s.run('keys', 'list');
    expect(human.stdout).toContain(`${s.first.ES256}  ES256  active`);
    expect(human.stdout).toContain(`${s.first.RS256}  RS256  active`);
  });

  test('rotate publishes next keys first and refuses to promote them before publish_ahead', async () => {
    const s = await setup();
    const r1 = await s.run('keys', 'rotate', '--json');
    expect(r1.code).toBe(0);
    expect(r1.json).toMatchObject({ active: s.first, retired: [], promoted: false });
    expect(r1.json.next).toEqual(ANY_SET);
    expect(Object.values(r1.json.next)).not.toContain(s.first.RS256);
    expect(r1.json.promotableAt).toMatch(ISO);
    // The default publish_ahead is an hour: a second call changes nothing.
    const r2 = await s.run('keys', 'rotate', '--json');
    expect(r2.json).toMatchObject({ active: s.first, next: r1.json.next, retired: [], promoted: false });
    const human = await s.run('keys', 'rotate');
    expect(human.stdout).toContain('--now');
    expect(human.stdout).toContain(`ES256 ${s.first.ES256}`);
  });

  test('rotate promotes the next keys published for publish_ahead together and leaves fresh next keys', async () => {
    const s = await setup();
    const b = (await s.run('keys', 'rotate', '--json')).json.next;
    await s.publishedAgo(3600);
    const r = await s.run('keys', 'rotate', '--json');
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ active: b, promoted: true, promotableAt: null });
    expect([...r.json.retired].sort()).toEqual(Object.values(s.first).sort());
    expect(r.json.next).toEqual(ANY_SET);
    for (const kid of Object.values(r.json.next))
      expect([...Object.values(s.first), ...Object.values(b)]).not.toContain(kid);
    const list = (await s.run('keys', 'list', '--json')).json.keys;
    const old = list.find((k: { kid: string }) => k.kid === s.first.RS256);
    expect(old.state).toBe('retired');
    expect(old.retiredAt).toMatch(ISO);
    expect(old.removeAfter).toMatch(ISO);
    // Kept for the longer of token_ttl and proof_ttl (30 days by default) plus 60 s of skew.
    expect(Date.parse(old.removeAfter) - Date.parse(old.retiredAt)).toBe(30 * 86_400_000 + 60_000);
    for (const kid of Object.values(b)) expect(await s.audit()).toContain(`cli signing_key.rotate ${kid}`);
  });

  test('rotate --now promotes at once, even with no next key, and leaves fresh next keys', async () => {
    const s = await setup();
    const r = await s.run('keys', 'rotate', '--now', '--json');
    expect(r.code).toBe(0);
    expect(r.json.active).toEqual(ANY_SET);
    for (const alg of ['RS256', 'ES256', 'EdDSA'] as const) expect(r.json.active[alg]).not.toBe(s.first[alg]);
    expect([...r.json.retired].sort()).toEqual(Object.values(s.first).sort());
    expect(r.json.next).toEqual(ANY_SET);
    expect(r.json.next.RS256).not.toBe(r.json.active.RS256);
    expect(r.json.promoted).toBe(true);
  });

  // A kid is base64url: one in 4096 begins with "--", which is an operand only after a "--".
  test('retire: an active key needs published successors, which are promoted with it', async () => {
    const s = await setup();
    const none = await s.run('keys', 'retire', '--json', '--', s.first.RS256);
    expect(none.code).toBe(1);
    expect(none.json.error.code).toBe('VALIDATION_FAILED');
    expect(none.json.error.message).toContain('successor');

    // Successors published a moment ago are not enough: relying parties may not have fetched them.
    const b = (await s.run('keys', 'rotate', '--json')).json.next;
    const young = await s.run('keys', 'retire', '--json', '--', s.first.RS256);
    expect(young.code).toBe(1);
    expect(young.json.error.message).toContain('rotate --now');
    const list = (await s.run('keys', 'list', '--json')).json.keys;
    expect(
      list.find((k: { state: string; alg: string }) => k.state === 'active' && k.alg === 'RS256').kid,
    ).toBe(s.first.RS256);
    expect(b).toEqual(ANY_SET);
  });

  test('retire an active key with published successors; retired keys stay listed until removed', async () => {
    const s = await setup();
    const b = (await s.run('keys', 'rotate', '--json')).json.next;
    await s.publishedAgo(3600);
    const r = await s.run('keys', 'retire', '--json', '--', s.first.RS256);
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ kid: s.first.RS256, state: 'retired', active: b, next: null });
    // The set rotates together: the other algorithms' keys were retired with it.
    expect([...r.json.retired].sort()).toEqual(Object.values(s.first).sort());
    expect(r.json.removeAfter).toMatch(ISO);
    expect(existsSync(join(s.dir, 'keys', `${s.first.RS256}.jwk.json`))).toBe(true);

    // Retiring it again changes nothing.
    const again = await s.run('keys', 'retire', '--json', '--', s.first.RS256);
    expect(again.code).toBe(0);
    expect(again.json).toMatchObject({ state: 'retired', removeAfter: r.json.removeAfter });

    // --remove (compromise): gone from the list and from disk at once.
    const gone = await s.run('keys', 'retire', '--remove', '--json', '--', s.first.RS256);
    expect(gone.code).toBe(0);
    expect(gone.json).toMatchObject({ kid: s.first.RS256, state: 'removed', removeAfter: null, active: b });
    expect(gone.json.retired).not.toContain(s.first.RS256);
    expect(existsSync(join(s.dir, 'keys', `${s.first.RS256}.jwk.json`))).toBe(false);
    const kids = (await s.run('keys', 'list', '--json')).json.keys.map((k: { kid: string }) => k.kid);
    expect(kids).not.toContain(s.first.RS256);
    expect(kids).toEqual(expect.arrayContaining([...Object.values(b), s.first.ES256, s.first.EdDSA]));
    const audit = await s.audit();
    expect(audit).toContain(`cli signing_key.rotate ${b.RS256}`);
    expect(audit).toContain(`cli signing_key.remove ${s.first.RS256}`);
  });

  test('retire a next key: it never signed, so it may leave at once', async () => {
    const s = await setup();
    const b = (await s.run('keys', 'rotate', '--json')).json.next;
    const r = await s.run('keys', 'retire', '--json', '--', b.ES256);
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ kid: b.ES256, state: 'retired', active: s.first, retired: [b.ES256] });
    expect(r.json.next).toEqual({ RS256: b.RS256, EdDSA: b.EdDSA });
    expect(await s.audit()).toContain(`cli signing_key.retire ${b.ES256}`);
  });

  test('retire: unknown kid fails, missing kid is a usage error', async () => {
    const s = await setup();
    const unknown = await s.run('keys', 'retire', 'nope', '--json');
    expect(unknown.code).toBe(1);
    expect(unknown.json.error.message).toContain('nope');
    const missing = await s.run('keys', 'retire', '--json');
    expect(missing.code).toBe(2);
    expect(missing.json.error.code).toBe('USAGE');
    const flag = await s.run('keys', 'rotate', '--soon', '--json');
    expect(flag.code).toBe(2);
  });

  test('a kid that begins with "-" (one in 64 thumbprints does) is a kid, not an option', async () => {
    const s = await setup();
    const config = join(s.dir, 'verity.toml');
    for (const args of [
      ['keys', 'retire', '-nope', '--json', '--config', config],
      ['keys', 'retire', '--json', '--config', config, '-nope'],
      ['keys', 'retire', '--json', '--config', config, '--', '--nope'],
    ]) {
      const r = await cli(...args);
      expect({ args, code: r.code, error: r.json.error.code }).toEqual({ args, code: 1, error: 'FAILED' });
      expect(r.json.error.message).toContain('nope');
    }
    // A misspelt long option is still refused rather than taken for an operand.
    expect((await s.run('keys', 'retire', '--nope', '--json')).code).toBe(2);
  });
});
