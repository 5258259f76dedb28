import { createTableRelationsHelpers, extractTablesRelationalConfig } from 'drizzle-orm/relations';
import { BaseSQLiteDatabase, SQLiteSyncDialect } from 'drizzle-orm/sqlite-core';
import type { Statement } from './sqlite.ts';

/** What drizzle's better-sqlite3 session calls on its client. */
export interface SyncClient {
  prepare(sql: string): Statement<unknown> & { raw(): Statement<unknown> };
  transaction<T>(fn: () => T, begin: string): T;
}

/**
 * A synchronous drizzle database over any client shaped like better-sqlite3: node:sqlite (Deno) and
 * PostgreSQL (postgres.ts), for which drizzle has no synchronous adapter of its own. drizzle's SQLite
 * dialect writes SQL that PostgreSQL runs as it is once `?` placeholders are numbered.
 */
export async function drizzleOverSyncClient(schema: Record<string, unknown>, client: SyncClient) {
  // Imported when used: the Bun build needs drizzle-orm/better-sqlite3 only for this.
  const { BetterSQLiteSession } = await import('drizzle-orm/better-sqlite3/session');
  const wrapped = {
    prepare: client.prepare,
    transaction: <A extends unknown[], T>(fn: (...args: A) => T) => {
      const run =
        (begin: string) =>
        (...args: A) =>
          client.transaction(() => fn(...args), begin);
      return { deferred: run('BEGIN'), immediate: run('BEGIN IMMEDIATE'), exclusive: run('BEGIN EXCLUSIVE') };
    },
  };
  const dialect = new SQLiteSyncDialect();
  const tables = extractTablesRelationalConfig(schema, createTableRelationsHelpers);
  const config = { fullSchema: schema, schema: tables.tables, tableNamesMap: tables.tableNamesMap };
  const session = new BetterSQLiteSession(wrapped as never, dialect, config);
  return new BaseSQLiteDatabase('sync', dialect, session as never, config);
}
