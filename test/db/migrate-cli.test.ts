import { afterEach, describe, expect, test } from 'bun:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { postgresMigrations } from '../../src/db/migrations.gen.ts';
import { openDb } from '../../src/db/open.ts';
import { cliProcess } from '../helpers/cli.ts';
import { tempDir, testDatabase, testToml } from '../helpers/context.ts';
import { freePort } from '../helpers/port.ts';
import { freshDatabaseUrl, postgresAvailable } from '../helpers/postgres.ts';

const verity = (config: string, ...args: string[]) => cliProcess([...args, '--config', config]);

let cleanup = () => {};
afterEach(() => cleanup());

describe('start refuses a database whose migrations differ from the shipped ones', () => {
  test('serve, migrate and other commands name the migration and what to do', async () => {
    const tmp = tempDir('verity-migrate');
    cleanup = tmp.cleanup;
    const config = join(tmp.dir, 'verity.toml');
    writeFileSync(config, testToml(tmp.dir, `[server]\nlisten = "127.0.0.1:${await freePort()}"`));
    expect((await verity(config, 'migrate')).code).toBe(0);

    const db = await openDb(testDatabase(tmp.dir));
    db.sql.exec(`UPDATE _migrations SET checksum = '${'0'.repeat(64)}' WHERE name = '0000_init'`);
    db.close();

    for (const args of [['serve'], ['migrate'], ['apps', 'list']]) {
      const r = await verity(config, ...args);
      expect({ args, code: r.code }).toEqual({ args, code: 1 });
      expect(r.stderr).toContain(
        `verity: migration 0000_init applied to the database (SHA-256 ${'0'.repeat(64)}) differs from the one this version of Verity ships`,
      );
      expect(r.stderr).toContain(
        'restore a backup made by this release, or run the release that migrated the database',
      );
      expect(r.stderr).not.toMatch(/^\s+at /m);
    }
  }, 30_000);
});

// Instances starting together against one PostgreSQL database take turns on an advisory lock
// (src/db/migrate.ts): the first applies the migrations, the others find nothing left to do.
describe.skipIf(!postgresAvailable())('PostgreSQL: instances migrating the same database at once', () => {
  test('every one succeeds, each migration is applied once, and a re-run is a no-op', async () => {
    const tmp = tempDir('verity-migrate');
    cleanup = tmp.cleanup;
    const config = join(tmp.dir, 'verity.toml');
    writeFileSync(
      config,
      `[database]\nurl = "${freshDatabaseUrl()}"\n[keys]\ndir = "${join(tmp.dir, 'keys')}"\n`,
    );
    const migrateJson = async () => {
      const r = await verity(config, 'migrate', '--json');
      expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
      return JSON.parse(r.stdout) as { applied: string[]; pending: string[] };
    };
    const runs = await Promise.all([migrateJson(), migrateJson(), migrateJson()]);
    expect(runs.flatMap((r) => r.applied).sort()).toEqual(postgresMigrations.map((m) => m.name));
    for (const r of runs) expect(r.pending).toEqual([]);
    expect(await migrateJson()).toEqual({ applied: [], pending: [] });
  }, 60_000);
});
