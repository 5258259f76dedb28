import { createHash } from 'node:crypto';
import { type Logger, silentLogger } from '../log.ts';
import type { Clock } from '../platform/clock.ts';
import { unix } from '../platform/clock.ts';
import { LOCKS } from './exclusive.ts';
import { migrations as embedded, postgresMigrations } from './migrations.gen.ts';
import type { Db } from './open.ts';

export interface Migration {
  name: string;
  sql: string;
}

/** The SHA-256 of a migration's SQL: the same as `sha256sum migrations/NAME.sql`. */
export const migrationChecksum = (m: Migration): string => createHash('sha256').update(m.sql).digest('hex');

/** The database's migration history does not match the migrations this build ships. */
export class MigrationMismatchError extends Error {}

const RECOVER = 'restore a backup made by this release, or run the release that migrated the database';

/**
 * Applies the embedded migrations in order, each in its own transaction and recorded in `_migrations`
 * with its SHA-256, so a re-run is a no-op and a crash mid-way leaves the database at a migration
 * boundary. Refuses a database whose applied migrations are not the ones shipped (see verifyHistory).
 */
export function migrate(
  db: Db,
  clock: Clock,
  { migrations = shipped(db), log = silentLogger }: { migrations?: Migration[]; log?: Logger } = {},
): string[] {
  if (db.engine === 'postgres') {
    // Instances starting together take turns: the first migrates, the others find nothing pending.
    waitForLock(db, LOCKS.migrations, log);
    try {
      db.sql.exec(
        'CREATE TABLE IF NOT EXISTS _migrations (name text PRIMARY KEY NOT NULL, applied_at bigint NOT NULL, checksum text)',
      );
      return apply(db, clock, migrations);
    } finally {
      db.sql.exec(`SELECT pg_advisory_unlock(${LOCKS.migrations})`);
    }
  }
  db.sql.exec(
    'CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY NOT NULL, applied_at INTEGER NOT NULL, checksum TEXT) STRICT',
  );
  return apply(db, clock, migrations);
}

const pause = new Int32Array(new SharedArrayBuffer(4));

/** How long a wait for the migrations lock goes unreported, and then between reports. */
const LOCK_WAIT_REPORT_MS = { first: 3_000, every: 30_000 };

/**
 * Takes a session advisory lock however long another instance's migration holds it (a backfill may take
 * minutes), and says who holds it while it waits. Polled: a waiting `pg_advisory_lock` would meet the
 * connection's lock and answer timeouts, which are for statements.
 */
function waitForLock(db: Db, lock: number, log: Logger): void {
  const tryLock = db.sql.prepare<{ ok: number }>(`SELECT pg_try_advisory_lock(${lock}) AS ok`);
  const start = Date.now();
  let reportAt = start + LOCK_WAIT_REPORT_MS.first;
  while (!tryLock.get()!.ok) {
    if (Date.now() >= reportAt) {
      log.warn('waiting for another process to finish migrating the database', {
        waitedSeconds: Math.round((Date.now() - start) / 1000),
        heldBy: lockHolders(db, lock),
      });
      reportAt += LOCK_WAIT_REPORT_MS.every;
    }
    Atomics.wait(pause, 0, 0, 100);
  }
}

/** The sessions holding an advisory lock on this database (a key below 2^32 is its `objid`). */
const lockHolders = (db: Db, lock: number) =>
  db.sql
    .prepare<{ pid: number; application: string; client: string | null; connectedAt: string }>(
      `SELECT a.pid, a.application_name AS application, host(a.client_addr) AS client,
         to_char(a.backend_start AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS "connectedAt"
       FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
       WHERE l.locktype = 'advisory' AND l.granted AND l.classid = 0 AND l.objid = ${lock}
         AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    )
    .all();

/** The migrations this build ships for the database's engine. */
export const shipped = (db: Pick<Db, 'engine'>): Migration[] =>
  db.engine === 'postgres' ? postgresMigrations : embedded;

function apply(db: Db, clock: Clock, migrations: Migration[]): string[] {
  const pending = verifyHistory(db, migrations);
  // Databases migrated before checksums were recorded: their history is trusted once, as it stands.
  db.sql.transaction(() => {
    if (!hasChecksumColumn(db)) db.sql.exec('ALTER TABLE _migrations ADD COLUMN checksum TEXT');
    const fill = db.sql.prepare('UPDATE _migrations SET checksum = ? WHERE name = ? AND checksum IS NULL');
    for (const m of migrations) fill.run(migrationChecksum(m), m.name);
  });
  const applied: string[] = [];
  for (const m of pending) {
    db.sql.transaction(() => {
      for (const stmt of m.sql.split('--> statement-breakpoint')) {
        if (stmt.trim()) db.sql.exec(stmt);
      }
      db.sql
        .prepare('INSERT INTO _migrations (name, applied_at, checksum) VALUES (?, ?, ?)')
        .run(m.name, unix(clock), migrationChecksum(m));
    });
    applied.push(m.name);
  }
  return applied;
}

/** The shipped migrations not yet applied; throws like migrate() when the history does not match. */
export function pendingMigrations(db: Db, migrations: Migration[] = shipped(db)): string[] {
  const exists = db.sql
    .prepare(
      db.engine === 'postgres'
        ? "SELECT 1 AS x FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = '_migrations'"
        : "SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = '_migrations'",
    )
    .get();
  if (!exists) return migrations.map((m) => m.name);
  return verifyHistory(db, migrations).map((m) => m.name);
}

/**
 * Every applied migration must be one this build ships, with the same SHA-256 (a missing checksum, from
 * before they were recorded, is not checked), and every pending one must come after all applied ones:
 * anything else means the schema is not what this build's code expects. Returns the pending migrations.
 */
function verifyHistory(db: Db, migrations: Migration[]): Migration[] {
  const rows = db.sql
    .prepare<{ name: string; checksum: string | null }>(
      `SELECT name, ${hasChecksumColumn(db) ? 'checksum' : 'NULL AS checksum'} FROM _migrations ORDER BY name`,
    )
    .all();
  const shipped = new Map(migrations.map((m) => [m.name, m]));
  for (const row of rows) {
    const m = shipped.get(row.name);
    if (!m)
      throw new MigrationMismatchError(
        `the database has migration ${row.name} applied, which this version of Verity does not ship (a newer release migrated it): ${RECOVER}`,
      );
    const sum = migrationChecksum(m);
    if (row.checksum !== null && row.checksum !== sum)
      throw new MigrationMismatchError(
        `migration ${row.name} applied to the database (SHA-256 ${row.checksum}) differs from the one this version of Verity ships (${sum}): ${RECOVER}`,
      );
  }
  const done = new Set(rows.map((r) => r.name));
  const pending = migrations.filter((m) => !done.has(m.name));
  const last = rows.at(-1)?.name;
  const early = last === undefined ? undefined : pending.find((m) => m.name < last);
  if (early)
    throw new MigrationMismatchError(
      `migration ${early.name} is not applied but the later ${last} is, and migrations apply in order: ${RECOVER}`,
    );
  return pending;
}

const hasChecksumColumn = (db: Db) =>
  db.engine === 'postgres' ||
  db.sql.prepare("SELECT 1 AS x FROM pragma_table_info('_migrations') WHERE name = 'checksum'").get() !==
    undefined;
