import type { BaseSQLiteDatabase } from 'drizzle-orm/sqlite-core';
import { files } from '../platform/files.ts';
import { runtime } from '../platform/runtime.ts';
import type { SqliteDriver } from '../platform/sqlite.ts';
import { CommitHooks } from './after-commit.ts';
import * as schema from './schema/index.ts';
import { createWriteBatch, type WriteBatch } from './write-batch.ts';

export type Orm = BaseSQLiteDatabase<'sync', unknown, typeof schema>;

/**
 * A database handle: `sql` for prepared statements on hot paths, `orm` (drizzle) everywhere else.
 * Both run on the same connection, so a drizzle write and a prepared write share one transaction.
 */
export interface Db {
  sql: SqliteDriver;
  orm: Orm;
  path: string;
  /** Group-committed writes for hot paths (see write-batch.ts). */
  batch: WriteBatch;
  /**
   * Runs fn once the enclosing `sql.transaction()` or batch unit commits, never after a rollback
   * (at once outside both). For effects outside the database; fn must not throw.
   */
  afterCommit(fn: () => void): void;
  close(): void;
}

export async function openDb(path: string): Promise<Db> {
  if (path !== ':memory:') {
    await files.ensureDir(files.dirname(path));
    // It holds password hashes and personal data; SQLite gives its -wal and -shm files the same mode.
    await files.ensurePrivateFile(path);
  }
  const driver = await runtime.openSqlite(path);
  const hooks = new CommitHooks();
  const sql = withCommitHooks(driver, hooks);
  sql.exec('PRAGMA journal_mode = WAL');
  sql.exec('PRAGMA synchronous = NORMAL');
  sql.exec('PRAGMA foreign_keys = ON');
  sql.exec('PRAGMA busy_timeout = 5000');
  const orm = (await sql.drizzle(schema)) as Orm;
  return {
    sql,
    orm,
    path,
    batch: createWriteBatch(driver, hooks),
    afterCommit: (fn) => hooks.add(fn),
    close: () => sql.close(),
  };
}

/** The driver, with `transaction()` running its callbacks after the outermost COMMIT. */
function withCommitHooks(driver: SqliteDriver, hooks: CommitHooks): SqliteDriver {
  return {
    exec: (statement) => driver.exec(statement),
    prepare: (statement) => driver.prepare(statement),
    transaction(fn) {
      const { value, hooks: committed } = hooks.collect(() => driver.transaction(fn));
      hooks.settle(committed);
      return value;
    },
    get inTransaction() {
      return driver.inTransaction;
    },
    drizzle: (s) => driver.drizzle(s),
    backup: (file) => driver.backup(file),
    close: () => driver.close(),
  };
}

/** Table statistics let SQLite plan small joins as index lookups rather than scans. */
export function optimize(db: Db): void {
  db.sql.exec('PRAGMA optimize=0x10002');
}
