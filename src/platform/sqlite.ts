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

export interface SqliteDriver {
  exec(sql: string): void;
  prepare<Row = Record<string, unknown>>(sql: string): Statement<Row>;
  /** Runs fn in a BEGIN IMMEDIATE transaction; nested calls become savepoints. */
  transaction<T>(fn: () => T): T;
  /** Whether a transaction is open on this connection. */
  readonly inTransaction: boolean;
  /** A drizzle database (synchronous) on this same connection. */
  drizzle(schema: Record<string, unknown>): Promise<unknown>;
  backup(file: string): Promise<void>;
  close(): void;
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
