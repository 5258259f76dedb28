import { afterEach, describe, expect, test } from 'bun:test';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import { createApp } from '../../src/app.ts';
import { listAudit } from '../../src/audit/audit.store.ts';
import { createContext } from '../../src/bootstrap.ts';
import { parseConfig } from '../../src/config/load.ts';
import type { AppContext } from '../../src/context.ts';
import { sealedSecrets } from '../../src/keys/instance-secrets.ts';
import { silentLogger } from '../../src/log.ts';
import { fixedClock } from '../../src/platform/clock.ts';
import { createTestApp, type TestApp } from '../helpers/apps.ts';
import { cli } from '../helpers/cli.ts';
import { onPostgres, tempDir, testConfig, testToml } from '../helpers/context.ts';
import { releaseBeforeSigningAlgs } from '../helpers/release-before-algs.ts';
import {
  ALL_SCOPES,
  Browser,
  CALLBACK,
  callbackParams,
  decide,
  location,
  passFace,
  pathOf,
  pkcePair,
  signInPersona,
} from '../identity/flow-helpers.ts';
import { basic, tokenRequest } from '../oauth/fixtures.ts';

const dirs: { cleanup(): void }[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) d.cleanup();
});
/** A data directory with its config file, as an operator has one. */
function installation(extra = ''): { dir: string; config: string } {
  const d = tempDir('verity-bk');
  dirs.push(d);
  const config = join(d.dir, 'verity.toml');
  writeFileSync(config, testToml(d.dir, `[rate_limits.oauth]\nrequests = 1000\n${extra}`));
  return { dir: d.dir, config };
}
const start = (dir: string, extra = '') =>
  createContext(testConfig(dir, `[rate_limits.oauth]\nrequests = 1000\n${extra}`), {
    clock: fixedClock(Date.UTC(2026, 5, 1, 12)),
    log: silentLogger,
  });

/** Ada signs in through the whole sandbox code flow; returns the `sub` of her ID token. */
async function signInAda(ctx: AppContext, client: TestApp): Promise<string> {
  const browser = new Browser(createApp(ctx));
  const { verifier, challenge } = pkcePair();
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: CALLBACK,
    scope: ALL_SCOPES,
    state: 'state-123',
    nonce: 'nonce-123',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  const path = pathOf(location(await browser.get(`/v1/oauth/authorize?${q}`)));
  await signInPersona(browser, path, 'ada');
  const face = await passFace(browser, path);
  // The second time her consent is remembered: the face step ends at the callback.
  const done = location(face).startsWith(CALLBACK) ? face : await decide(browser, path, 'allow');
  const { code } = callbackParams(done);
  const res = await createApp(ctx).request(
    '/v1/oauth/token',
    tokenRequest(
      { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: verifier },
      { auth: basic(client.clientId, client.clientSecret!), as: 'form' },
    ),
  );
  expect(res.status).toBe(200);
  return decodeJwt((await res.json()).id_token).sub!;
}

// The archive holds the SQLite file; a PostgreSQL database is backed up with pg_dump (see below).
describe.skipIf(onPostgres)('verity backup and verity restore', () => {
  test('one archive round trip: the same person gets the same sub and webhook secrets still open', async () => {
    const a = installation();
    const ctx = await start(a.dir);
    const client = await createTestApp(ctx, {
      type: 'confidential',
      redirectUris: [CALLBACK],
      scopes: ALL_SCOPES,
    });
    const sub = await signInAda(ctx, client);
    const sealed = await sealedSecrets(ctx.config, 'webhook secrets').seal('whs_1', 'whsec_endpoint-secret');

    const file = join(a.dir, 'backups', 'verity.backup');
    const r = await cli('backup', file, '--json', '--config', a.config);
    expect(r.code).toBe(0);
    const bytes = readFileSync(file);
    expect(r.json).toEqual({
      file,
      bytes: bytes.length,
      keys: 5, // the RS256, ES256 and EdDSA signing keys, the pairwise secret, the webhook secret key
      sha256: createHash('sha256').update(bytes).digest('hex'),
    });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(join(a.dir, 'backups'))).toEqual(['verity.backup']);
    expect(listAudit(ctx.db, { action: 'database.backup' })).toHaveLength(1);
    ctx.db.close();

    // Another machine, or the same one wiped: only the archive and the config come along.
    const b = installation();
    const restored = await cli('restore', file, '--json', '--config', b.config);
    expect(restored.code).toBe(0);
    expect(restored.json).toMatchObject({ database: join(b.dir, 'verity.db'), keys: 5 });
    expect(statSync(join(b.dir, 'verity.db')).mode & 0o777).toBe(0o600);
    expect(statSync(join(b.dir, 'keys')).mode & 0o777).toBe(0o700);
    for (const f of readdirSync(join(b.dir, 'keys')))
      expect(statSync(join(b.dir, 'keys', f)).mode & 0o777).toBe(0o600);
    expect((await cli('keys', 'check', '--config', b.config)).code).toBe(0);

    const again = await start(b.dir);
    try {
      expect(await signInAda(again, client)).toBe(sub);
      expect(await sealedSecrets(again.config, 'webhook secrets').open('whs_1', sealed)).toBe(
        'whsec_endpoint-secret',
      );
    } finally {
      again.db.close();
    }
  });

  test('restore refuses a damaged archive, an existing database without --force, and one a server holds', async () => {
    const a = installation();
    (await start(a.dir)).db.close();
    const file = join(a.dir, 'verity.backup');
    expect((await cli('backup', file, '--config', a.config)).code).toBe(0);

    // One byte of the database member changed: its digest no longer matches the manifest.
    const damaged = join(a.dir, 'damaged.backup');
    const bytes = readFileSync(file);
    bytes[bytes.length - 4096]! ^= 0xff;
    writeFileSync(damaged, bytes);
    const b = installation();
    const r = await cli('restore', damaged, '--json', '--config', b.config);
    expect(r.code).toBe(1);
    expect(r.json.error.message).toMatch(/does not match its manifest digest|not a readable Verity backup/);
    expect(existsSync(join(b.dir, 'verity.db'))).toBe(false);
    expect(existsSync(join(b.dir, 'keys'))).toBe(false);

    // The source installation's database exists: refused without --force, and while open even with it.
    const taken = await cli('restore', file, '--json', '--config', a.config);
    expect(taken.json.error.message).toContain('already exists');
    const running = await start(a.dir);
    try {
      const held = await cli('restore', file, '--force', '--json', '--config', a.config);
      expect(held.code).toBe(1);
      expect(held.json.error.message).toContain('stop the server');
    } finally {
      running.db.close();
    }
    // Stopped (another installation, whose old database no process has open): --force replaces it and
    // its stale -wal, which would otherwise be replayed into the restored database.
    const c = installation();
    writeFileSync(join(c.dir, 'verity.db'), '');
    writeFileSync(join(c.dir, 'verity.db-wal'), 'stale');
    const forced = await cli('restore', file, '--force', '--json', '--config', c.config);
    expect(forced.json).toMatchObject({ keys: 5 });
    const wal = join(c.dir, 'verity.db-wal');
    // Gone, or a fresh one from the check that opened the restored database.
    expect(existsSync(wal) ? readFileSync(wal, 'utf8') : '').not.toBe('stale');
    expect((await cli('keys', 'check', '--config', c.config)).code).toBe(0);
  });

  test('the database restored without its keys: the start refuses and keys check exits 1', async () => {
    const a = installation();
    const ctx = await start(a.dir);
    await createTestApp(ctx, { type: 'public', redirectUris: [CALLBACK], scopes: 'openid' });
    ctx.db.close();
    const file = join(a.dir, 'verity.backup');
    expect((await cli('backup', file, '--config', a.config)).code).toBe(0);
    const b = installation();
    expect((await cli('restore', file, '--config', b.config)).code).toBe(0);
    // The keys directory lost afterwards (or never copied).
    for (const f of readdirSync(join(b.dir, 'keys'))) writeFileSync(join(b.dir, 'keys', f), '');
    const check = await cli('keys', 'check', '--config', b.config);
    expect(check.code).toBe(1);
    expect(check.stderr).toContain('docs/backup.md#restoring');
    await expect(start(b.dir)).rejects.toThrow(join(b.dir, 'keys'));
  });

  test("an archive refused by the key check leaves the installation's database and keys as they were", async () => {
    const secret = (c: string) => `[oidc]\npairwise_secret = "${c.repeat(40)}"`;
    const a = installation(secret('a'));
    (await start(a.dir, secret('a'))).db.close();
    const file = join(a.dir, 'verity.backup');
    expect((await cli('backup', file, '--config', a.config)).code).toBe(0);
    // Another working installation, with a secret and an application of its own.
    const b = installation(secret('b'));
    const ctx = await start(b.dir, secret('b'));
    const own = await createTestApp(ctx, { type: 'public', redirectUris: [CALLBACK], scopes: 'openid' });
    ctx.db.close();

    const r = await cli('restore', file, '--force', '--json', '--config', b.config);
    expect(r.code).toBe(1);
    expect(r.json.error.message).toContain('does not belong to this database');
    expect((await cli('keys', 'check', '--config', b.config)).code).toBe(0);
    expect((await cli('apps', 'show', own.applicationId, '--config', b.config)).code).toBe(0);
  });

  test('a database kept inside the keys directory is restored with it', async () => {
    const d = tempDir('verity-bk');
    dirs.push(d);
    const data = join(d.dir, 'data');
    const config = join(d.dir, 'verity.toml');
    const toml = `[database]\npath = "${join(data, 'verity.db')}"\n[keys]\ndir = "${data}"\n`;
    writeFileSync(config, toml);
    (
      await createContext(parseConfig(toml), {
        clock: fixedClock(Date.UTC(2026, 5, 1, 12)),
        log: silentLogger,
      })
    ).db.close();
    const file = join(d.dir, 'verity.backup');
    expect((await cli('backup', file, '--config', config)).code).toBe(0);

    const r = await cli('restore', file, '--force', '--json', '--config', config);
    expect({ code: r.code, error: r.json.error }).toEqual({ code: 0, error: undefined });
    expect((await cli('keys', 'check', '--config', config)).code).toBe(0);
  });

  test('a backup from the release before several signing algorithms restores, its keys checked as RS256', async () => {
    const a = installation();
    const clock = fixedClock(Date.UTC(2026, 5, 1, 12));
    // The database and key file as that release wrote them: signing_keys had no alg column.
    await releaseBeforeSigningAlgs(a.dir, clock);
    expect((await cli('keys', 'check', '--json', '--config', a.config)).json.problems).toEqual([]);
    const file = join(a.dir, 'old.backup');
    expect((await cli('backup', file, '--config', a.config)).code).toBe(0);

    const b = installation();
    const r = await cli('restore', file, '--json', '--config', b.config);
    expect({ code: r.code, error: r.json.error }).toEqual({ code: 0, error: undefined });
  });
});

describe.skipIf(!onPostgres)('on PostgreSQL', () => {
  test('verity backup and verity restore refuse and point to pg_dump, writing nothing', async () => {
    const a = installation();
    (await start(a.dir)).db.close();
    const file = join(a.dir, 'verity.backup');
    for (const command of ['backup', 'restore']) {
      const r = await cli(command, file, '--config', a.config);
      expect({ command, code: r.code }).toEqual({ command, code: 1 });
      expect(r.stderr).toContain('back up a PostgreSQL database with pg_dump and the keys directory with it');
    }
    expect(existsSync(file)).toBe(false);
  });
});
