import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { listAudit } from '../../src/audit/audit.store.ts';
import { backupDatabase } from '../../src/db/backup.ts';
import { openDb } from '../../src/db/open.ts';
import { cli } from '../helpers/cli.ts';
import { tempDir, testToml } from '../helpers/context.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { jsonl, record } from '../persons/fixtures.ts';

let server: TestServer;
beforeEach(async () => {
  server = await startTestServer();
});
afterEach(async () => {
  await server.stop();
});

const importFile = (name: string, ...records: unknown[]): string => {
  const path = join(server.dir, name);
  writeFileSync(path, jsonl(...records));
  return path;
};

describe('verity backup', () => {
  test('copies the live database while the server runs; the copy opens, reads and passes integrity_check', async () => {
    const people = importFile(
      'people.jsonl',
      record(),
      record({ externalId: 'ext-2', emails: [{ email: 'jean@example.fr', verified: true }] }),
    );
    expect((await cli('persons', 'import', people, '--config', server.configPath)).code).toBe(0);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);

    const file = join(server.dir, 'backups', 'verity-1.db');
    const r = await cli('backup', file, '--json', '--config', server.configPath);
    expect(r.code).toBe(0);
    expect(r.json).toEqual({ file, bytes: statSync(file).size });
    expect(r.json.bytes).toBeGreaterThan(0);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // Only the finished file is left behind: no temporary copy.
    expect(readdirSync(join(server.dir, 'backups'))).toEqual(['verity-1.db']);

    // The server keeps serving and writing after the backup.
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    const later = importFile('later.jsonl', record({ externalId: 'ext-3', emails: [] }));
    expect((await cli('persons', 'import', later, '--config', server.configPath)).code).toBe(0);

    // Restore: the copy is a complete database on its own.
    const restored = await openDb(file);
    try {
      expect(restored.sql.prepare('PRAGMA integrity_check').get()).toEqual({ integrity_check: 'ok' });
      const ids = restored.sql
        .prepare("SELECT external_id FROM persons WHERE environment = 'production' ORDER BY external_id")
        .all();
      expect(ids).toEqual([{ external_id: 'ext-1' }, { external_id: 'ext-2' }]);
      expect(
        restored.sql
          .prepare(
            "SELECT count(*) AS n FROM identity_documents d JOIN persons p ON p.id = d.person_id WHERE p.environment = 'production'",
          )
          .get(),
      ).toEqual({ n: 2 });
      expect(restored.sql.prepare('SELECT count(*) AS n FROM signing_keys').get()).toEqual({
        n: (server.ctx.db.sql.prepare('SELECT count(*) AS n FROM signing_keys').get() as { n: number }).n,
      });
    } finally {
      restored.close();
    }

    expect(listAudit(server.ctx.db, { action: 'database.backup' })).toEqual([
      expect.objectContaining({ actor: 'cli', details: { file, bytes: r.json.bytes } }),
    ]);
  });

  test('a server started on a restored copy serves the same data', async () => {
    expect(
      (await cli('persons', 'import', importFile('p.jsonl', record()), '--config', server.configPath)).code,
    ).toBe(0);
    const file = join(server.dir, 'copy.db');
    expect((await cli('backup', file, '--config', server.configPath)).code).toBe(0);

    // Restore as docs/backup.md describes: the copy becomes the database path of a fresh installation.
    const { dir, cleanup } = tempDir('verity-restore');
    try {
      const config = join(dir, 'verity.toml');
      writeFileSync(config, testToml(dir).replace(join(dir, 'verity.db'), file));
      const shown = await cli('persons', 'show', '--external-id', 'ext-1', '--json', '--config', config);
      expect(shown.code).toBe(0);
      expect(shown.json).toMatchObject({ givenName: 'Maria', emails: [{ email: 'maria@example.com' }] });
    } finally {
      cleanup();
    }
  });

  test('the copy is one consistent snapshot: a transaction still open on the server is not in it', async () => {
    const live = server.ctx.db;
    const other = await openDb(live.path);
    const file = join(server.dir, 'snapshot.db');
    try {
      live.sql.exec('BEGIN IMMEDIATE');
      live.sql.exec(
        "INSERT INTO audit_log (at, actor, action, details) VALUES (1, 'system', 'uncommitted.write', '{}')",
      );
      await backupDatabase(other, file);
      live.sql.exec('COMMIT');
    } finally {
      other.close();
    }
    const copy = await openDb(file);
    try {
      expect(
        copy.sql.prepare("SELECT count(*) AS n FROM audit_log WHERE action = 'uncommitted.write'").get(),
      ).toEqual({ n: 0 });
    } finally {
      copy.close();
    }
    expect(listAudit(live, { action: 'uncommitted.write' }).length).toBe(1);
  });

  test('an existing file is never overwritten unless --force is given', async () => {
    const file = join(server.dir, 'taken.db');
    writeFileSync(file, 'precious');
    const r = await cli('backup', file, '--json', '--config', server.configPath);
    expect(r.code).toBe(1);
    expect(r.json.error.message).toContain('already exists');
    expect(await Bun.file(file).text()).toBe('precious');

    const forced = await cli('backup', file, '--force', '--json', '--config', server.configPath);
    expect(forced.code).toBe(0);
    const copy = await openDb(file);
    try {
      expect(copy.sql.prepare('PRAGMA integrity_check').get()).toEqual({ integrity_check: 'ok' });
    } finally {
      copy.close();
    }
  });

  test('refuses to back up over the database itself, or a database that does not exist', async () => {
    const self = await cli('backup', join(server.dir, 'verity.db'), '--force', '--config', server.configPath);
    expect(self.code).toBe(1);
    expect(self.stderr).toContain('cannot be the database itself');

    const { dir, cleanup } = tempDir('verity-empty');
    try {
      const config = join(dir, 'verity.toml');
      writeFileSync(config, testToml(dir));
      const r = await cli('backup', join(dir, 'out.db'), '--config', config);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('no database at');
      expect(existsSync(join(dir, 'verity.db'))).toBe(false);
    } finally {
      cleanup();
    }
    expect((await cli('backup', '--config', server.configPath)).code).toBe(2);
  });
});
