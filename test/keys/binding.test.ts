import { afterEach, describe, expect, test } from 'bun:test';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createContext } from '../../src/bootstrap.ts';
import type { AppContext } from '../../src/context.ts';
import { openDb } from '../../src/db/open.ts';
import { subjectFor } from '../../src/keys/pairwise.ts';
import { silentLogger } from '../../src/log.ts';
import { fixedClock } from '../../src/platform/clock.ts';
import { createTestApp } from '../helpers/apps.ts';
import { cli } from '../helpers/cli.ts';
import { onPostgres, tempDir, testConfig, testToml, useDatabaseOf } from '../helpers/context.ts';

const clock = () => fixedClock(Date.UTC(2026, 5, 1, 12));
const dirs: { cleanup(): void }[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) d.cleanup();
});
function freshDir() {
  const d = tempDir('verity-bind');
  dirs.push(d);
  return d.dir;
}
const start = (dir: string, extra = '') =>
  createContext(testConfig(dir, extra), { clock: clock(), log: silentLogger });
const startError = async (dir: string, extra = '') => {
  try {
    (await start(dir, extra)).db.close();
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('the start was expected to be refused');
};

/** An instance that an application has used: its `sub`s and webhook secrets depend on the keys. */
async function usedInstance(): Promise<{ dir: string; sub: string }> {
  const dir = freshDir();
  const ctx: AppContext = await start(dir);
  const app = await createTestApp(ctx, {
    type: 'public',
    redirectUris: ['https://rp.example/cb'],
    scopes: 'openid',
  });
  const sub = await subjectFor(ctx, app.applicationId, 'ada');
  ctx.db.close();
  return { dir, sub };
}

/** Only the database, restored into a fresh directory (the reproduction of issue 15). */
async function databaseAlone(from: string): Promise<string> {
  const dir = freshDir();
  // PostgreSQL's database is the server's, not the directory's: the same one, with no keys beside it.
  if (onPostgres) {
    useDatabaseOf(dir, from);
    return dir;
  }
  const db = await openDb(join(from, 'verity.db'));
  await db.backup(join(dir, 'verity.db'));
  db.close();
  return dir;
}

describe('key material is bound to its database', () => {
  test('a used database restored without its keys directory refuses to start, naming what to restore', async () => {
    const { dir } = await usedInstance();
    const restored = await databaseAlone(dir);
    const message = await startError(restored);
    expect(message).toContain(join(restored, 'keys'));
    expect(message).toContain('[oidc] pairwise_secret');
    expect(message).toContain('VERITY_OIDC_PAIRWISE_SECRET');
    expect(message).toContain('[webhooks] secret_key');
    expect(message).toContain('VERITY_WEBHOOKS_SECRET_KEY');
    expect(message).toContain('docs/backup.md#restoring');
    expect(message).toMatch(/signing key \S+ \(active\): .* is missing/);
    // Nothing was generated in its place.
    expect(existsSync(join(restored, 'keys', 'pairwise.secret'))).toBe(false);
    expect(existsSync(join(restored, 'keys', 'webhook-secrets.secret'))).toBe(false);
  });

  test('with its keys directory back, the same database starts and derives the same sub', async () => {
    const { dir, sub } = await usedInstance();
    const ctx = await start(dir);
    try {
      const [app] = ctx.db.sql.prepare<{ id: string }>('SELECT id FROM applications').all();
      expect(await subjectFor(ctx, app!.id, 'ada')).toBe(sub);
    } finally {
      ctx.db.close();
    }
  });

  test('a different pairwise secret, in the file or in the config, is refused', async () => {
    const { dir } = await usedInstance();
    const file = join(dir, 'keys', 'pairwise.secret');
    const original = readFileSync(file, 'utf8');
    writeFileSync(file, 'another-secret-of-another-instance');
    expect(await startError(dir)).toMatch(
      /pairwise secret .*: the one from .*pairwise\.secret is not the one/,
    );
    writeFileSync(file, original);
    expect(
      await startError(dir, '[oidc]\npairwise_secret = "configured-but-different-and-long-enough-to-pass"'),
    ).toContain('the one from [oidc] pairwise_secret / VERITY_OIDC_PAIRWISE_SECRET is not the one');
    // The original, configured instead of read from the file, is accepted.
    rmSync(file);
    (await start(dir, `[oidc]\npairwise_secret = "${original.trim()}"`)).db.close();
  });

  test('a database written before checks were recorded: refused without its secrets when used, generated when not', async () => {
    const { dir } = await usedInstance();
    const ctx = await start(dir);
    ctx.db.sql.exec('DELETE FROM instance_secret_checks');
    ctx.db.close();
    rmSync(join(dir, 'keys', 'webhook-secrets.secret'));
    expect(await startError(dir)).toContain('webhook secret key');

    // An instance nobody has used yet (only the sandbox personas) gets fresh secrets.
    const unused = freshDir();
    const unusedCtx = await start(unused);
    unusedCtx.db.sql.exec('DELETE FROM instance_secret_checks');
    unusedCtx.db.close();
    rmSync(join(unused, 'keys', 'pairwise.secret'));
    (await start(unused)).db.close();
    expect(existsSync(join(unused, 'keys', 'pairwise.secret'))).toBe(true);
  });

  test('an active key file holding another key is refused; a missing retired key only warns', async () => {
    const { dir } = await usedInstance();
    const keysDir = join(dir, 'keys');
    const [active] = readdirSync(keysDir).filter((n) => n.endsWith('.jwk.json'));
    const other = freshDir();
    (await start(other)).db.close();
    const [foreign] = readdirSync(join(other, 'keys')).filter((n) => n.endsWith('.jwk.json'));
    const saved = readFileSync(join(keysDir, active!));
    writeFileSync(join(keysDir, active!), readFileSync(join(other, 'keys', foreign!)));
    expect(await startError(dir)).toContain(`${join(keysDir, active!)} holds a different key`);
    writeFileSync(join(keysDir, active!), saved);

    // Rotate so the old key is retired, then lose its file: the start goes on and says so.
    const ctx = await start(dir);
    const { rotateManually } = await import('../../src/keys/key-admin.ts');
    await rotateManually(ctx, { immediate: true });
    ctx.db.close();
    rmSync(join(keysDir, active!));
    const warnings: unknown[] = [];
    const log = { ...silentLogger, warn: (_m: string, f?: unknown) => warnings.push(f) };
    const restarted = await createContext(testConfig(dir), { clock: clock(), log });
    try {
      expect(JSON.stringify(warnings)).toContain('(retired)');
      // Three active, three next, and the two retired keys whose files are still there.
      expect(JSON.parse(await restarted.keys.jwksBody()).keys.length).toBe(8);
      expect((await restarted.keys.signingKey()).kid).not.toBe(active!.replace('.jwk.json', ''));
    } finally {
      restarted.db.close();
    }
  });

  test('verity keys check exits 0 when the keys belong to the database and 1 (naming them) when not', async () => {
    const { dir } = await usedInstance();
    const config = join(dir, 'verity.toml');
    writeFileSync(config, testToml(dir));
    const ok = await cli('keys', 'check', '--json', '--config', config);
    expect(ok.code).toBe(0);
    expect(ok.json).toEqual({ ok: true, problems: [], warnings: [] });

    const restored = await databaseAlone(dir);
    const restoredConfig = join(restored, 'verity.toml');
    writeFileSync(restoredConfig, testToml(restored));
    const bad = await cli('keys', 'check', '--config', restoredConfig);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('VERITY_OIDC_PAIRWISE_SECRET');
    expect(bad.stderr).toContain('docs/backup.md#restoring');
    const json = await cli('keys', 'check', '--json', '--config', restoredConfig);
    expect(json.code).toBe(1);
    // Both instance secrets and the active key of each algorithm.
    expect(json.json.problems.length).toBe(5);
    // The check changed nothing: no secret was generated.
    expect(existsSync(join(restored, 'keys'))).toBe(false);
  });

  test('a missing or swapped EC or Ed25519 key file is found by keys check and refuses a start', async () => {
    const { dir } = await usedInstance();
    const config = join(dir, 'verity.toml');
    writeFileSync(config, testToml(dir));
    const ctx = await start(dir);
    const ec = ctx.keys.store.active('ES256')!.kid;
    const ed = ctx.keys.store.active('EdDSA')!.kid;
    ctx.db.close();
    const ecFile = join(dir, 'keys', `${ec}.jwk.json`);
    const saved = readFileSync(ecFile);
    rmSync(ecFile);
    const missing = await cli('keys', 'check', '--json', '--config', config);
    expect(missing.code).toBe(1);
    expect(missing.json.problems).toEqual([`signing key ${ec} (active): ${ecFile} is missing`]);
    expect(await startError(dir)).toContain(`${ecFile} is missing`);

    // The Ed25519 key's file put in place of the EC key's: another key, of another type.
    writeFileSync(ecFile, readFileSync(join(dir, 'keys', `${ed}.jwk.json`)));
    const swapped = await cli('keys', 'check', '--json', '--config', config);
    expect(swapped.code).toBe(1);
    expect(swapped.json.problems).toEqual([`signing key ${ec} (active): ${ecFile} holds a different key`]);

    writeFileSync(ecFile, saved);
    expect((await cli('keys', 'check', '--json', '--config', config)).json.ok).toBe(true);
  });
});
