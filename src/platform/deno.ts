import { nodeCrypto } from './node-crypto.ts';
import { listenNodeHttp } from './node-listen.ts';
import { importRsaPrivateJwk, signRs256 } from './rs256.ts';
import type { Runtime } from './runtime.ts';
import { bindable, type SqliteDriver, statementCache } from './sqlite.ts';
import { drizzleOverSyncClient } from './sync-drizzle.ts';
import { spawnWebWorker, webParentPort } from './worker.ts';

export const denoRuntime: Runtime = {
  name: 'deno',
  openSqlite,
  listen: listenNodeHttp,
  spawnWorker: spawnWebWorker,
  parentPort: webParentPort,
  ...nodeCrypto,
  rs256Provider: 'node:crypto',
  importRsaPrivateJwk,
  signRs256,
  boundHeap: () => () => {},
  releaseStartupPages: async () => ({ released: false, why: 'released only under Bun' }),
};

/** The part of node:sqlite used here (Node 20's types predate it). */
interface StatementSync {
  get(...params: unknown[]): Record<string, unknown> | undefined;
  all(...params: unknown[]): Record<string, unknown>[];
  run(...params: unknown[]): { changes: number | bigint };
  setReturnArrays(on: boolean): void;
}
interface DatabaseSync {
  exec(sql: string): void;
  prepare(sql: string): StatementSync;
  readonly isTransaction: boolean;
  close(): void;
}

/**
 * Deno's built-in node:sqlite: nothing to install or compile, and `deno compile` embeds nothing
 * native. It has no transaction helper, and drizzle no adapter for it: the statements and
 * transactions below take the shape drizzle's better-sqlite3 session expects.
 */
async function openSqlite(path: string, opts: { readonly?: boolean } = {}): Promise<SqliteDriver> {
  const { DatabaseSync } = (await import('node:sqlite' as string)) as {
    DatabaseSync: new (path: string, options?: { readOnly?: boolean }) => DatabaseSync;
  };
  const db = new DatabaseSync(path, { readOnly: opts.readonly ?? false });
  let depth = 0;
  // As bun:sqlite and better-sqlite3 do: inside an open transaction (whoever began it), a savepoint.
  function transaction<T>(fn: () => T, begin = 'BEGIN IMMEDIATE'): T {
    const savepoint = db.isTransaction ? `sp${depth}` : undefined;
    db.exec(savepoint ? `SAVEPOINT ${savepoint}` : begin);
    depth++;
    try {
      const result = fn();
      db.exec(savepoint ? `RELEASE ${savepoint}` : 'COMMIT');
      return result;
    } catch (e) {
      if (savepoint) db.exec(`ROLLBACK TO ${savepoint}; RELEASE ${savepoint}`);
      else if (db.isTransaction) db.exec('ROLLBACK');
      throw e;
    } finally {
      depth--;
    }
  }
  const statement = (sql: string, arrays = false) => {
    const s = db.prepare(sql);
    if (arrays) s.setReturnArrays(true);
    return {
      get: (...p: unknown[]) => s.get(...bindable(p)),
      all: (...p: unknown[]) => s.all(...bindable(p)),
      run: (...p: unknown[]) => ({ changes: Number(s.run(...bindable(p)).changes) }),
    };
  };
  return {
    engine: 'sqlite',
    exec: (sql) => db.exec(sql),
    prepare: statementCache((sql) => statement(sql)),
    transaction: (fn) => transaction(fn),
    get inTransaction() {
      return db.isTransaction;
    },
    drizzle: (schema) =>
      drizzleOverSyncClient(schema, {
        prepare: (sql: string) => ({ ...statement(sql), raw: () => statement(sql, true) }),
        transaction: (fn, begin) => transaction(fn, begin),
      }),
    async backup(file) {
      db.prepare('VACUUM INTO ?').run(file);
    },
    close: () => db.close(),
  };
}
