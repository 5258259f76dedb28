import type { SqlDriver } from './sql-driver.ts';

/**
 * The one SQLite surface the rest of the code sees. bun:sqlite (Bun), better-sqlite3 (Node) and
 * node:sqlite (Deno) are synchronous and close enough that a thin adapter in each runtime's file
 * covers them; parameters are always positional (`?`).
 */
export interface Statement<Row = Record<string, unknown>> {
  get(...params: unknown[]): Row | undefined;
  all(...params: unknown[]): Row[];
  run(...params: unknown[]): { changes: number };
}

export interface SqliteDriver extends SqlDriver {
  readonly engine: 'sqlite';
  backup(file: string): Promise<void>;
}

/**
 * bun:sqlite binds booleans as 1/0 and undefined as NULL; better-sqlite3 and node:sqlite refuse
 * both, so their adapters bind through this.
 */
export const bindable = (params: unknown[]): unknown[] =>
  params.map((p) => (typeof p === 'boolean' ? (p ? 1 : 0) : p === undefined ? null : p));

/** The wrapper, not only the statement, is cached: hot paths call prepare() for every query. */
export function statementCache(make: (sql: string) => Statement<unknown>) {
  const cache = new Map<string, Statement<unknown>>();
  return <Row>(sql: string): Statement<Row> => {
    let wrapper = cache.get(sql);
    if (!wrapper) {
      wrapper = make(sql);
      cache.set(sql, wrapper);
    }
    return wrapper as Statement<Row>;
  };
}
