import { describe, expect, test } from 'bun:test';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LOCKS } from '../../src/db/exclusive.ts';
import { migrate, migrationChecksum, pendingMigrations, shipped } from '../../src/db/migrate.ts';
import { type Db, openDb } from '../../src/db/open.ts';
import { jsonLogger } from '../../src/log.ts';
import { fixedClock } from '../../src/platform/clock.ts';
import { onPostgres, tempDir, testDatabase } from '../helpers/context.ts';

async function withDb(fn: (db: Db, dir: string) => Promise<void> | void): Promise<void> {
  const { dir, cleanup } = tempDir();
  const db = await openDb(testDatabase(dir));
  try {
    await fn(db, dir);
  } finally {
    db.close();
    cleanup();
  }
}

// PostgreSQL: tables with their columns, indexes and triggers, from its catalogue.
const SCHEMA_PG = `SELECT 'table' AS type, c.relname AS name,
    (SELECT string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod), ', ' ORDER BY a.attnum)
       FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped) AS sql
  FROM pg_class c WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r'
  UNION ALL SELECT 'index', indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema()
  UNION ALL SELECT 'trigger', tgname, pg_get_triggerdef(oid) FROM pg_trigger WHERE NOT tgisinternal
  ORDER BY 1, 2`;

const schemaOf = (db: Db) =>
  db.sql
    .prepare<{ type: string; name: string; sql: string | null }>(
      db.engine === 'postgres'
        ? SCHEMA_PG
        : "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name",
    )
    .all();

const tablesOf = (db: Db) =>
  db.sql
    .prepare<{ name: string; strict: number }>(
      "SELECT name, strict FROM pragma_table_list WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
    )
    .all();

describe('migrations', () => {
  test('an empty database is migrated to the full schema, and a re-run is a no-op', async () => {
    await withDb(async (db) => {
      const clock = fixedClock(Date.UTC(2026, 2, 3, 4, 5, 6));
      const migrations = shipped(db);
      expect(pendingMigrations(db)).toEqual(migrations.map((m) => m.name));
      expect(migrate(db, clock)).toEqual(migrations.map((m) => m.name));
      expect(pendingMigrations(db)).toEqual([]);
      const schema = schemaOf(db);
      expect(schema.filter((s) => s.type === 'table').length).toBeGreaterThan(10);

      clock.advance(60_000);
      expect(migrate(db, clock)).toEqual([]);
      expect(schemaOf(db)).toEqual(schema);
      // Each migration is recorded once, at the time it ran, in unix seconds.
      const recorded = db.sql
        .prepare<{ name: string; applied_at: number; checksum: string }>(
          'SELECT name, applied_at, checksum FROM _migrations',
        )
        .all();
      expect(recorded).toEqual(
        migrations.map((m) => ({
          name: m.name,
          applied_at: Date.UTC(2026, 2, 3, 4, 5, 6) / 1000,
          checksum: migrationChecksum(m),
        })),
      );
    });
  });

  test('reopening a migrated database (a restart) finds nothing to apply', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const path = testDatabase(dir);
      const first = await openDb(path);
      migrate(first, fixedClock());
      const schema = schemaOf(first);
      first.close();
      const second = await openDb(path);
      expect(pendingMigrations(second)).toEqual([]);
      expect(migrate(second, fixedClock())).toEqual([]);
      expect(schemaOf(second)).toEqual(schema);
      second.close();
    } finally {
      cleanup();
    }
  });

  // Another instance of a new release migrating longer than the connection's 5-second lock timeout
  // (a backfill on a large table): this one waits for it, as operations.md says, and does not fail.
  // Advisory locks are PostgreSQL's: named, so it runs in either suite.
  test('an instance starting while another migrates waits as long as it takes, saying who holds it', async () => {
    const { dir, cleanup } = tempDir();
    const url = testDatabase(dir, 'postgres');
    const held = Bun.spawn(
      ['psql', url, '-c', `SELECT pg_advisory_lock(${LOCKS.migrations})`, '-c', 'SELECT pg_sleep(6)'],
      { stdout: 'ignore', stderr: 'ignore' },
    );
    const db = await openDb(url);
    try {
      // Advisory locks are per database, and the other tests' servers share the cluster: this one's.
      const holding = db.sql.prepare(
        'SELECT 1 FROM pg_locks WHERE locktype = ? AND objid = ? AND database = (SELECT oid FROM pg_database WHERE datname = current_database())',
      );
      while (!holding.get('advisory', LOCKS.migrations)) await Bun.sleep(50);
      const lines: string[] = [];
      const log = jsonLogger('info', (line) => lines.push(line));
      const started = Date.now();
      expect(migrate(db, fixedClock(), { log }).length).toBeGreaterThan(0);
      expect(Date.now() - started).toBeGreaterThan(4000);
      // Reported after 3 s, naming the session that holds the lock.
      expect(lines.map((l) => JSON.parse(l))).toEqual([
        expect.objectContaining({
          level: 'warn',
          msg: 'waiting for another process to finish migrating the database',
          heldBy: [expect.objectContaining({ pid: expect.any(Number), application: 'psql' })],
        }),
      ]);
    } finally {
      db.close();
      await held.exited;
      cleanup();
    }
  }, 20_000);

  test('a failing migration leaves the database at the previous migration boundary', async () => {
    await withDb((db) => {
      const clock = fixedClock();
      const good = { name: '0001_good', sql: 'CREATE TABLE good (id INTEGER PRIMARY KEY);' };
      const bad = {
        name: '0002_bad',
        sql: 'CREATE TABLE half (id INTEGER PRIMARY KEY);\n--> statement-breakpoint\nCREATE TABLE oops (',
      };
      expect(() => migrate(db, clock, { migrations: [good, bad] })).toThrow();
      const names = schemaOf(db).map((s) => s.name);
      expect(names).toContain('good');
      expect(names).not.toContain('half');
      expect(pendingMigrations(db, [good, bad])).toEqual(['0002_bad']);
    });
  });

  test.skipIf(onPostgres)('every table is STRICT (a SQLite table option)', async () => {
    await withDb((db) => {
      migrate(db, fixedClock());
      const tables = tablesOf(db);
      expect(tables.length).toBeGreaterThan(10);
      expect(tables.filter((t) => t.strict !== 1).map((t) => t.name)).toEqual([]);
    });
  });

  test.skipIf(onPostgres)('STRICT tables refuse a value of the wrong type (SQLite)', async () => {
    await withDb((db) => {
      migrate(db, fixedClock());
      db.sql.exec('CREATE TABLE typed (at INTEGER NOT NULL) STRICT');
      expect(() => db.sql.prepare('INSERT INTO typed (at) VALUES (?)').run('2026-01-01T00:00:00Z')).toThrow();
    });
  });

  test('times are stored as unix seconds: every *_at column is a 64-bit integer', async () => {
    await withDb((db) => {
      migrate(db, fixedClock());
      const columns =
        db.engine === 'postgres'
          ? db.sql
              .prepare<{ table: string; name: string; type: string }>(
                `SELECT table_name AS "table", column_name AS name, data_type AS type
                   FROM information_schema.columns WHERE table_schema = current_schema()`,
              )
              .all()
          : tablesOf(db).flatMap(({ name: table }) =>
              db.sql
                .prepare<{ name: string; type: string }>('SELECT name, type FROM pragma_table_info(?)')
                .all(table)
                .map((c) => ({ table, ...c })),
            );
      const times = columns.filter((c) => c.name === 'at' || c.name.endsWith('_at'));
      expect(times.length).toBeGreaterThan(10);
      const integer = db.engine === 'postgres' ? 'bigint' : 'INTEGER';
      expect(times.filter((c) => c.type !== integer).map((c) => `${c.table}.${c.name} ${c.type}`)).toEqual(
        [],
      );
    });
  });

  // Enforcement itself is shown by the seam probe (sqlite-seam.test.ts) under both drivers.
  // PRAGMA foreign_key_list/foreign_key_check; PostgreSQL checks foreign keys on every write.
  test.skipIf(onPostgres)('foreign keys are declared and the migrated schema satisfies them', async () => {
    await withDb((db) => {
      migrate(db, fixedClock());
      const withForeignKeys = tablesOf(db).filter(
        (t) => db.sql.prepare('SELECT 1 AS x FROM pragma_foreign_key_list(?)').all(t.name).length > 0,
      );
      expect(withForeignKeys.length).toBeGreaterThan(0);
      expect(db.sql.prepare('PRAGMA foreign_key_check').all()).toEqual([]);
    });
  });
});

describe('a migration history that does not match the shipped migrations', () => {
  const one = { name: '0000_one', sql: 'CREATE TABLE one (id INTEGER PRIMARY KEY);' };
  const two = { name: '0001_two', sql: 'CREATE TABLE two (id INTEGER PRIMARY KEY);' };
  const three = { name: '0002_three', sql: 'CREATE TABLE three (id INTEGER PRIMARY KEY);' };
  const names = (db: Db) => schemaOf(db).map((s) => s.name);

  test('the SHA-256 recorded is that of the migration file', async () => {
    await withDb((db) => {
      migrate(db, fixedClock());
      const folder = db.engine === 'postgres' ? '../../migrations/postgres' : '../../migrations';
      const sql = readFileSync(join(import.meta.dir, folder, '0000_init.sql'), 'utf8');
      const recorded = db.sql
        .prepare<{ checksum: string }>("SELECT checksum FROM _migrations WHERE name = '0000_init'")
        .get();
      expect(recorded?.checksum).toBe(createHash('sha256').update(sql).digest('hex'));
    });
  });

  test('an applied migration whose SQL changed is refused by name, and nothing is applied', async () => {
    await withDb((db) => {
      migrate(db, fixedClock(), { migrations: [one] });
      const edited = { ...one, sql: `${one.sql}\n-- edited` };
      const before = schemaOf(db);
      for (const run of [
        () => migrate(db, fixedClock(), { migrations: [edited, two] }),
        () => pendingMigrations(db, [edited, two]),
      ])
        expect(run).toThrow(
          `migration 0000_one applied to the database (SHA-256 ${migrationChecksum(one)}) differs from the one this version of Verity ships (${migrationChecksum(edited)})`,
        );
      expect(schemaOf(db)).toEqual(before);
      expect(names(db)).not.toContain('two');
    });
  });

  test('a database migrated by a newer release (a migration not shipped) is refused by name', async () => {
    await withDb((db) => {
      migrate(db, fixedClock(), { migrations: [one, two] });
      for (const run of [
        () => migrate(db, fixedClock(), { migrations: [one] }),
        () => pendingMigrations(db, [one]),
      ])
        expect(run).toThrow(
          'the database has migration 0001_two applied, which this version of Verity does not ship (a newer release migrated it): restore a backup made by this release, or run the release that migrated the database',
        );
    });
  });

  test('a shipped migration numbered before one already applied is refused, not applied out of order', async () => {
    await withDb((db) => {
      migrate(db, fixedClock(), { migrations: [one, three] });
      expect(() => migrate(db, fixedClock(), { migrations: [one, two, three] })).toThrow(
        'migration 0001_two is not applied but the later 0002_three is',
      );
      expect(names(db)).not.toContain('two');
    });
  });

  // Databases created before checksums were recorded have no checksum column: their history is
  // trusted once, and checked from then on.
  // PostgreSQL support came after checksums: its history always has them.
  test.skipIf(onPostgres)(
    'a database from before checksums gets them filled in once, then checked',
    async () => {
      await withDb((db) => {
        db.sql.exec(
          'CREATE TABLE _migrations (name TEXT PRIMARY KEY NOT NULL, applied_at INTEGER NOT NULL) STRICT',
        );
        db.sql.exec(one.sql);
        db.sql.prepare('INSERT INTO _migrations (name, applied_at) VALUES (?, ?)').run(one.name, 1);
        const columns = () => db.sql.prepare("SELECT name FROM pragma_table_info('_migrations')").all();
        // Refused before anything is written, even the new column.
        expect(() => migrate(db, fixedClock(), { migrations: [two] })).toThrow(
          'migration 0000_one applied, which',
        );
        expect(columns()).toEqual([{ name: 'name' }, { name: 'applied_at' }]);
        expect(pendingMigrations(db, [one, two])).toEqual(['0001_two']);
        expect(migrate(db, fixedClock(), { migrations: [one, two] })).toEqual(['0001_two']);
        const recorded = db.sql
          .prepare<{ name: string; checksum: string }>('SELECT name, checksum FROM _migrations ORDER BY name')
          .all();
        expect(recorded).toEqual([
          { name: one.name, checksum: migrationChecksum(one) },
          { name: two.name, checksum: migrationChecksum(two) },
        ]);
        expect(() =>
          migrate(db, fixedClock(), { migrations: [{ ...one, sql: `${one.sql} ` }, two] }),
        ).toThrow('migration 0000_one applied to the database');
      });
    },
  );
});
