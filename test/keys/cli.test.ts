import { afterEach, describe, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { listAudit } from '../../src/audit/audit.store.ts';
import { createContext } from '../../src/bootstrap.ts';
import { parseConfig } from '../../src/config/load.ts';
import { silentLogger } from '../../src/log.ts';
import { cli } from '../helpers/cli.ts';
import { tempDir, testToml } from '../helpers/context.ts';

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

/** A migrated database with its first key, and a config file for the CLI. */
async function setup(extra = '') {
  const t = tempDir('verity-keys-cli');
  cleanup = t.cleanup;
  const toml = testToml(t.dir, extra);
  const configPath = join(t.dir, 'verity.toml');
  await Bun.write(configPath, toml);
  const ctx = await createContext(parseConfig(toml), { log: silentLogger });
  const first = ctx.keys.store.active()!.kid;
  ctx.db.close();
  const run = (...args: string[]) => cli(...args, '--config', configPath);
  const audit = async () => {
    const c = await createContext(parseConfig(toml), { log: silentLogger, migrate: false });
    try {
      return listAudit(c.db).map((e) => `${e.actor} ${e.action} ${e.target}`);
    } finally {
      c.db.close();
    }
  };
  /** The CLI runs on the real clock: moves a key's publication back instead of waiting publish_ahead. */
  const publishedAgo = async (kid: string, seconds: number) => {
    const c = await createContext(parseConfig(toml), { log: silentLogger, migrate: false });
    try {
      c.db.sql.prepare('UPDATE signing_keys SET created_at = created_at - ? WHERE kid = ?').run(seconds, kid);
    } finally {
      c.db.close();
    }
  };
  return { dir: t.dir, first, run, audit, publishedAgo };
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('verity keys', () => {
  test('list shows each key with its state and ISO times', async () => {
    const s = await setup();
    const r = await s.run('keys', 'list', '--json');
    expect(r.code).toBe(0);
    expect(r.json.keys).toEqual([
      {
        kid: s.first,
        state: 'active',
        createdAt: expect.stringMatching(ISO),
        activatedAt: expect.stringMatching(ISO),
        retiredAt: null,
        removeAfter: null,
      },
    ]);
    const human = await s.run('keys', 'list');
    expect(human.stdout).toContain(s.first);
    expect(human.stdout).toContain('active');
  });

  test('rotate publishes a next key first and refuses to promote it before publish_ahead', async () => {
    const s = await setup();
    const r1 = await s.run('keys', 'rotate', '--json');
    expect(r1.code).toBe(0);
    expect(r1.json).toMatchObject({ active: s.first, retired: [], promoted: false });
    expect(r1.json.next).toEqual(expect.any(String));
    expect(r1.json.next).not.toBe(s.first);
    expect(r1.json.promotableAt).toMatch(ISO);
    // The default publish_ahead is an hour: a second call changes nothing.
    const r2 = await s.run('keys', 'rotate', '--json');
    expect(r2.json).toMatchObject({ active: s.first, next: r1.json.next, retired: [], promoted: false });
    const human = await s.run('keys', 'rotate');
    expect(human.stdout).toContain('--now');
  });

  test('rotate promotes a next key published for publish_ahead and leaves a fresh next key', async () => {
    const s = await setup();
    const b = (await s.run('keys', 'rotate', '--json')).json.next;
    await s.publishedAgo(b, 3600);
    const r = await s.run('keys', 'rotate', '--json');
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ active: b, retired: [s.first], promoted: true, promotableAt: null });
    expect(r.json.next).toEqual(expect.any(String));
    expect([s.first, b]).not.toContain(r.json.next);
    const list = (await s.run('keys', 'list', '--json')).json.keys;
    const old = list.find((k: { kid: string }) => k.kid === s.first);
    expect(old.state).toBe('retired');
    expect(old.retiredAt).toMatch(ISO);
    expect(old.removeAfter).toMatch(ISO);
    // Kept for the longer of token_ttl and proof_ttl (30 days by default) plus 60 s of skew.
    expect(Date.parse(old.removeAfter) - Date.parse(old.retiredAt)).toBe(30 * 86_400_000 + 60_000);
    expect(await s.audit()).toContain(`cli signing_key.rotate ${b}`);
  });

  test('rotate --now promotes at once, even with no next key, and leaves a fresh next key', async () => {
    const s = await setup();
    const r = await s.run('keys', 'rotate', '--now', '--json');
    expect(r.code).toBe(0);
    expect(r.json.active).not.toBe(s.first);
    expect(r.json.retired).toEqual([s.first]);
    expect(r.json.next).toEqual(expect.any(String));
    expect(r.json.next).not.toBe(r.json.active);
    expect(r.json.promoted).toBe(true);
  });

  test('retire: the active key needs a published successor, which is promoted with it', async () => {
    const s = await setup();
    const none = await s.run('keys', 'retire', s.first, '--json');
    expect(none.code).toBe(1);
    expect(none.json.error.code).toBe('VALIDATION_FAILED');
    expect(none.json.error.message).toContain('successor');

    // A successor published a moment ago is not enough: relying parties may not have fetched it.
    const b = (await s.run('keys', 'rotate', '--json')).json.next;
    const young = await s.run('keys', 'retire', s.first, '--json');
    expect(young.code).toBe(1);
    expect(young.json.error.message).toContain('rotate --now');
    const list = (await s.run('keys', 'list', '--json')).json.keys;
    expect(list.find((k: { state: string }) => k.state === 'active').kid).toBe(s.first);
    expect(b).toEqual(expect.any(String));
  });

  test('retire the active key with a published successor; retired keys stay listed until removed', async () => {
    const s = await setup();
    const b = (await s.run('keys', 'rotate', '--json')).json.next;
    await s.publishedAgo(b, 3600);
    const r = await s.run('keys', 'retire', s.first, '--json');
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({
      kid: s.first,
      state: 'retired',
      active: b,
      next: null,
      retired: [s.first],
    });
    expect(r.json.removeAfter).toMatch(ISO);
    expect(existsSync(join(s.dir, 'keys', `${s.first}.jwk.json`))).toBe(true);

    // Retiring it again changes nothing.
    const again = await s.run('keys', 'retire', s.first, '--json');
    expect(again.code).toBe(0);
    expect(again.json).toMatchObject({ state: 'retired', removeAfter: r.json.removeAfter });

    // --remove (compromise): gone from the list and from disk at once.
    const gone = await s.run('keys', 'retire', s.first, '--remove', '--json');
    expect(gone.code).toBe(0);
    expect(gone.json).toMatchObject({
      kid: s.first,
      state: 'removed',
      removeAfter: null,
      active: b,
      retired: [],
    });
    expect(existsSync(join(s.dir, 'keys', `${s.first}.jwk.json`))).toBe(false);
    const kids = (await s.run('keys', 'list', '--json')).json.keys.map((k: { kid: string }) => k.kid);
    expect(kids).toEqual([b]);
    const audit = await s.audit();
    expect(audit).toContain(`cli signing_key.rotate ${b}`);
    expect(audit).toContain(`cli signing_key.remove ${s.first}`);
  });

  test('retire a next key: it never signed, so it may leave at once', async () => {
    const s = await setup();
    const b = (await s.run('keys', 'rotate', '--json')).json.next;
    const r = await s.run('keys', 'retire', b, '--json');
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ kid: b, state: 'retired', active: s.first, next: null, retired: [b] });
    expect(await s.audit()).toContain(`cli signing_key.retire ${b}`);
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
