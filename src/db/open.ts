import type { BaseSQLiteDatabase } from 'drizzle-orm/sqlite-core';
import { files } from '../platform/files.ts';
import { openPostgres } from '../platform/postgres.ts';
import { runtime } from '../platform/runtime.ts';
import type { Engine, SqlDriver } from '../platform/sql-driver.ts';
import { CommitHooks } from './after-commit.ts';
import * as schema from './schema/index.ts';
import { directReads, type Reads, turnSnapshot } from './turn-snapshot.ts';
import { createWriteBatch, type WriteBatch } from './write-batch.ts';

export type Orm = BaseSQLiteDatabase<'sync', unknown, typeof schema>;

/**
 * A database handle: `sql` for prepared statements on hot paths, `orm` (drizzle) everywhere else.
 * Both run on the same connection, so a drizzle write and a prepared write share one transaction.
 */
export interface Db {
  engine: Engine;
  sql: SqlDriver;
  /** Reads for hot paths, at this turn's snapshot (see turn-snapshot.ts). */
  reads: Reads;
  orm: Orm;
  /** The SQLite file; '' on PostgreSQL. */
  path: string;
  /** Where the database is, for messages: the file, or the URL without its password. */
  location: string;
  /** Group-committed writes for hot paths (see write-batch.ts). */
  batch: WriteBatch;
  /**
   * Runs fn once the enclosing `sql.transaction()` or batch unit commits, never after a rollback
   * (at once outside both). For effects outside the database; fn must not throw.
   */
  afterCommit(fn: () => void): void;
  /** A consistent copy of a SQLite database into `file` (PostgreSQL has pg_dump for that). */
  backup(file: string): Promise<void>;
  close(): void;
}

/** A `postgres://` (or `postgresql://`) URL opens PostgreSQL; anything else is a SQLite file. */
export const isPostgresUrl = (target: string) => /^postgres(ql)?:\/\//.test(target);

/** The database a configuration names: `[database] url` when set, else `[database] path`. */
export const databaseTarget = (config: { database: { path: string; url: string } }) =>
  config.database.url || config.database.path;

/** A URL with its password replaced, fit for logs and messages. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'the configured PostgreSQL URL';
  }
}

export async function openDb(target: string): Promise<Db> {
  if (isPostgresUrl(target)) {
    const backup = async () => {
      throw new Error(
        'a PostgreSQL database is backed up with pg_dump (docs/operations.md#backups-with-pg_dump)',
      );
    };
    return wrap(await openPostgres(target), { path: '', location: redactUrl(target), backup });
  }
  const path = target;
  if (path !== ':memory:') {
    await files.ensureDir(files.dirname(path));
    // It holds password hashes and personal data; SQLite gives its -wal and -shm files the same mode.
    await files.ensurePrivateFile(path);
  }
  const driver = await runtime.openSqlite(path);
  driver.exec('PRAGMA journal_mode = WAL');
  // A commit is on disk before its answer, a power loss included (NORMAL may roll the last ones back);
  // the group commit shares one sync among its writes.
  driver.exec('PRAGMA synchronous = FULL');
  driver.exec('PRAGMA foreign_keys = ON');
  driver.exec('PRAGMA busy_timeout = 5000');
  // A second connection, only for reads (turn-snapshot.ts); an in-memory database cannot have one.
  const reader = path === ':memory:' ? undefined : await runtime.openSqlite(path);
  return wrap(driver, { path, location: path, backup: (file) => driver.backup(file) }, reader);
}

/**
 * An existing SQLite file opened read-only: nothing writes to it, not even the settings openDb makes
 * or the checkpoint a last connection runs on close (the source of `verity db copy`).
 */
export async function openDbReadOnly(path: string): Promise<Db> {
  const driver = await runtime.openSqlite(path, { readonly: true });
  return wrap(driver, { path, location: path, backup: (file) => driver.backup(file) });
}

async function wrap(
  driver: SqlDriver,
  where: Pick<Db, 'path' | 'location' | 'backup'>,
  reader?: SqlDriver,
): Promise<Db> {
  const hooks = new CommitHooks();
  const sql = withCommitHooks(driver, hooks);
  const orm = (await sql.drizzle(schema)) as Orm;
  const reads = reader ? turnSnapshot(driver, reader) : directReads(driver);
  return {
    engine: driver.engine,
    sql,
    reads,
    orm,
    ...where,
    batch: createWriteBatch(driver, hooks),
    afterCommit: (fn) => hooks.add(fn),
    close: () => {
      reads.release();
      reader?.close();
      sql.close();
    },
  };
}

/**
 * The driver, with `transaction()` running its callbacks after the outermost COMMIT. They are
 * collected inside the transaction, so a PostgreSQL transaction run again keeps only its last run's.
 */
function withCommitHooks(driver: SqlDriver, hooks: CommitHooks): SqlDriver {
  return {
    engine: driver.engine,
    exec: (statement) => driver.exec(statement),
    prepare: (statement) => driver.prepare(statement),
    transaction(fn) {
      const { value, hooks: committed } = driver.transaction(() => hooks.collect(fn));
      hooks.settle(committed);
      return value;
    },
    get inTransaction() {
      return driver.inTransaction;
    },
    drizzle: (s) => driver.drizzle(s),
    close: () => driver.close(),
  };
}

/** Table statistics let SQLite plan small joins as index lookups rather than scans. */
export function optimize(db: Db): void {
  if (db.engine === 'sqlite') db.sql.exec('PRAGMA optimize=0x10002');
}
