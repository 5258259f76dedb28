import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { listAudit } from '../../src/audit/audit.store.ts';
import { sha256Hex } from '../../src/crypto/tokens.ts';
import { openDb } from '../../src/db/open.ts';
import { authenticateApiKey } from '../../src/developer/api-key.store.ts';
import { findInvitation } from '../../src/developer/developer.store.ts';
import { fixedClock } from '../../src/platform/clock.ts';
import { cli } from '../helpers/cli.ts';
import { tempDir, testDatabase, testToml } from '../helpers/context.ts';
import { storedText } from '../helpers/db-probes.ts';

let dir: { dir: string; cleanup(): void };
let config: string;
beforeAll(async () => {
  dir = tempDir('verity-dev-cli');
  config = join(dir.dir, 'verity.toml');
  writeFileSync(config, testToml(dir.dir, '[server]\nbase_url = "https://id.example.com"'));
  expect((await cli('migrate', '--config', config)).code).toBe(0);
});
afterAll(() => dir.cleanup());

const run = (...argv: string[]) => cli(...argv, '--config', config);
let n = 0;
const email = () => `dev${++n}@example.com`;

/** The database file's bytes after folding the WAL in, to look for clear-text secrets. */
async function rawDatabase(): Promise<string> {
  return withDb(storedText);
}

async function withDb<T>(fn: (db: Awaited<ReturnType<typeof openDb>>) => Promise<T> | T): Promise<T> {
  const db = await openDb(testDatabase(dir.dir));
  try {
    return await fn(db);
  } finally {
    db.close();
  }
}

describe('verity developers', () => {
  test('create --json prints { developerId }; a duplicate exits 1; a missing flag exits 2', async () => {
    const e = email();
    const r = await run('developers', 'create', '--email', e, '--json');
    expect(r.code).toBe(0);
    expect(Object.keys(r.json)).toEqual(['developerId']);
    expect(r.json.developerId).toMatch(/^dev_/);
    const dup = await run('developers', 'create', '--email', e.toUpperCase(), '--json');
    expect(dup.code).toBe(1);
    expect(dup.json.error.message).toContain('already exists');
    expect((await run('developers', 'create')).code).toBe(2);
    expect((await run('developers', 'create', '--email', 'not-an-email')).code).toBe(1);
  });

  test('invite prints a one-time link under developer_url; only its hash is stored', async () => {
    const r = await run('developers', 'invite', '--email', email(), '--json');
    expect(r.code).toBe(0);
    expect(r.json.url).toBe(`https://id.example.com/developer/invitations/${r.json.token}`);
    expect(r.json.token).toMatch(/^inv_/);
    const raw = await rawDatabase();
    expect(raw.includes(r.json.token)).toBe(false);
    expect(raw.includes(await sha256Hex(r.json.token))).toBe(true);
    await withDb(async (db) => {
      expect((await findInvitation(db, fixedClock(Date.now()), r.json.token))?.email).toBe(r.json.email);
    });
  });

  test('keys create --json gives { keyId, key }; the key works, is hashed, and revoke ends it', async () => {
    const { developerId } = (await run('developers', 'create', '--email', email(), '--json')).json;
    const sandbox = await run('developers', 'keys', 'create', developerId, '--env', 'sandbox', '--json');
    expect(sandbox.code).toBe(0);
    expect(Object.keys(sandbox.json).sort()).toEqual(['key', 'keyId']);
    expect(sandbox.json.key).toMatch(/^dk_test_/);
    const live = await run('developers', 'keys', 'create', '--env', 'production', developerId, '--json');
    expect(live.json.key).toMatch(/^dk_live_/);

    const raw = await rawDatabase();
    for (const k of [sandbox.json.key, live.json.key]) {
      expect(raw.includes(k)).toBe(false);
      expect(raw.includes(await sha256Hex(k))).toBe(true);
    }
    const clock = fixedClock(Date.now());
    await withDb(async (db) => {
      expect(await authenticateApiKey(db, clock, sandbox.json.key)).toMatchObject({
        developerId,
        environment: 'sandbox',
      });
    });

    const list = await run('developers', 'keys', 'list', developerId, '--json');
    expect(list.json.keys.length).toBe(2);
    expect(list.stdout).not.toContain('dk_');

    const revoked = await run('developers', 'keys', 'revoke', sandbox.json.keyId, '--json');
    expect(revoked.code).toBe(0);
    expect(revoked.json.keyId).toBe(sandbox.json.keyId);
    await withDb(async (db) => {
      expect(await authenticateApiKey(db, clock, sandbox.json.key)).toBeUndefined();
      expect(await authenticateApiKey(db, clock, live.json.key)).toBeDefined();
    });

    expect((await run('developers', 'keys', 'create', developerId)).code).toBe(2);
    expect((await run('developers', 'keys', 'create', developerId, '--env', 'staging')).code).toBe(2);
    expect((await run('developers', 'keys', 'create', 'dev_nope', '--env', 'sandbox')).code).toBe(1);
    expect((await run('developers', 'keys', 'revoke', 'key_nope')).code).toBe(1);
  });

  test('list shows developers without secrets; apps can be owned by one', async () => {
    const { developerId } = (await run('developers', 'create', '--email', email(), '--json')).json;
    const list = await run('developers', 'list', '--json');
    expect(
      list.json.developers.find((d: { developerId: string }) => d.developerId === developerId),
    ).toMatchObject({
      status: 'active',
      activated: false,
      activeKeys: 0,
    });
    const app = await run(
      'apps',
      'create',
      '--name',
      'Owned',
      '--type',
      'public',
      '--redirect-uri',
      'https://owned.example.com/cb',
      '--scopes',
      'openid',
      '--owner',
      developerId,
      '--json',
    );
    expect(app.code).toBe(0);
    const owned = await run('apps', 'list', '--owner', developerId, '--json');
    expect(owned.json.applications.map((a: { applicationId: string }) => a.applicationId)).toEqual([
      app.json.applicationId,
    ]);
  });

  test('operator actions are audited, never with the key or token', async () => {
    const { developerId } = (await run('developers', 'create', '--email', email(), '--json')).json;
    const key = (await run('developers', 'keys', 'create', developerId, '--env', 'sandbox', '--json')).json;
    await run('developers', 'keys', 'revoke', key.keyId);
    const inv = (await run('developers', 'invite', '--email', email(), '--json')).json;
    await withDb((db) => {
      const rows = listAudit(db);
      const mine = rows.filter((r) => [developerId, key.keyId, inv.invitationId].includes(r.target ?? ''));
      expect(mine.map((r) => [r.actor, r.action]).reverse()).toEqual([
        ['cli', 'developer.create'],
        ['cli', 'api_key.create'],
        ['cli', 'api_key.revoke'],
        ['cli', 'developer.invite'],
      ]);
      const text = JSON.stringify(rows);
      expect(text).not.toContain(key.key);
      expect(text).not.toContain(inv.token);
    });
  });

  test('--help works for the group and each command', async () => {
    expect((await cli('developers', 'keys', 'create', '--help')).stdout).toContain('--env');
    const group = await cli('developers', '--help');
    expect(group.code).toBe(0);
    expect(group.stdout).toContain('developers keys revoke');
  });
});
