import type { BaseSQLiteDatabase } from 'drizzle-orm/sqlite-core';
import { files } from '../platform/files.ts';
import { runtime } from '../platform/runtime.ts';
import type { SqliteDriver } from '../platform/sqlite.ts';
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
  close(): void;
}

export async function openDb(path: string): Promise<Db> {
  if (path !== ':memory:') {
    await files.ensureDir(files.dirname(path));
    // It holds password hashes and personal data; SQLite gives its -wal and -shm files the same mode.
    await files.ensurePrivateFile(path);
  }
  const sql = await runtime.openSqlite(path);
  sql.exec('PRAGMA journal_mode = WAL');
  sql.exec('PRAGMA synchronous = NORMAL');
  sql.exec('PRAGMA foreign_keys = ON');
  sql.exec('PRAGMA busy_timeout = 5000');
  const orm = (await sql.drizzle(schema)) as Orm;
  return { sql, orm, path, batch: createWriteBatch(sql), close: () => sql.close() };
}

/** Table statistics let SQLite plan small joins as index lookups rather than scans. */
export function optimize(db: Db): void {
  db.sql.exec('PRAGMA optimize=0x10002');
}
