import { isBun } from './runtime.ts';

/**
 * The one SQLite surface the rest of the code sees. Both bun:sqlite and better-sqlite3 are synchronous
 * and close enough that a thin adapter covers them; parameters are always positional (`?`).
 */
export interface Statement<Row = Record<string, unknown>> {
  get(...params: unknown[]): Row | undefined;
  all(...params: unknown[]): Row[];
  run(...params: unknown[]): { changes: number };
}

export interface SqliteDriver {
  readonly kind: 'bun' | 'node';
  /** The raw driver handle, for drizzle. */
  readonly raw: unknown;
  exec(sql: string): void;
  prepare<Row = Record<string, unknown>>(sql: string): Statement<Row>;
  /** Runs fn in a BEGIN IMMEDIATE transaction; nested calls become savepoints. */
  transaction<T>(fn: () => T): T;
  /** Whether a transaction is open on this connection. */
  readonly inTransaction: boolean;
  backup(file: string): Promise<void>;
  close(): void;
}

export async function openSqlite(path: string): Promise<SqliteDriver> {
  return isBun ? openBun(path) : openNode(path);
}

async function openBun(path: string): Promise<SqliteDriver> {
  const { Database } = await import('bun:sqlite');
  const db = new Database(path, { create: true, strict: true });
  // The wrapper, not only the statement, is cached: hot paths call prepare() for every query.
  const cache = new Map<string, Statement<unknown>>();
  const driver: SqliteDriver = {
    kind: 'bun',
    raw: db,
    exec: (sql) => db.exec(sql),
    prepare<Row>(sql: string) {
      let wrapper = cache.get(sql);
      if (!wrapper) {
        const s = db.prepare(sql);
        wrapper = {
          get: (...p: unknown[]) => s.get(...(p as never[])) ?? undefined,
          all: (...p: unknown[]) => s.all(...(p as never[])),
          run: (...p: unknown[]) => ({ changes: Number(s.run(...(p as never[])).changes) }),
        };
        cache.set(sql, wrapper);
      }
      return wrapper as Statement<Row>;
    },
    transaction: (fn) => db.transaction(fn).immediate(),
    get inTransaction() {
      return db.inTransaction;
    },
    async backup(file) {
      db.prepare('VACUUM INTO ?').run(file);
    },
    close: () => db.close(),
  };
  return driver;
}

/**
 * better-sqlite3 differs from bun:sqlite in ways the rest of the code must not see: it refuses to bind
 * booleans (bun:sqlite binds them as 1/0), and its get()/all() throw on a statement that returns no rows
 * (bun:sqlite runs it and returns nothing), so such a statement is run and an empty result returned.
 */
async function openNode(path: string): Promise<SqliteDriver> {
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(path);
  const cache = new Map<string, Statement<unknown>>();
  const bind = (params: unknown[]) =>
    params.map((p) => (typeof p === 'boolean' ? (p ? 1 : 0) : p === undefined ? null : p));
  return {
    kind: 'node',
    raw: db,
    exec: (sql) => {
      db.exec(sql);
    },
    prepare<Row>(sql: string) {
      let wrapper = cache.get(sql);
      if (!wrapper) {
        const stmt = db.prepare(sql);
        const returnsRows = stmt.reader;
        wrapper = {
          get: (...p: unknown[]) => {
            if (returnsRows) return stmt.get(...bind(p));
            stmt.run(...bind(p));
            return undefined;
          },
          all: (...p: unknown[]) => {
            if (returnsRows) return stmt.all(...bind(p));
            stmt.run(...bind(p));
            return [];
          },
          run: (...p: unknown[]) => ({ changes: stmt.run(...bind(p)).changes }),
        };
        cache.set(sql, wrapper);
      }
      return wrapper as Statement<Row>;
    },
    transaction: (fn) => db.transaction(fn).immediate(),
    get inTransaction() {
      return db.inTransaction;
    },
    async backup(file) {
      db.prepare('VACUUM INTO ?').run(file);
    },
    close: () => db.close(),
  };
}
