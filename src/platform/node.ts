import { parentPort, Worker } from 'node:worker_threads';
import { nodeCrypto } from './node-crypto.ts';
import { listenNodeHttp } from './node-listen.ts';
import { importRsaPrivateJwk, signRs256 } from './rs256.ts';
import type { Runtime } from './runtime.ts';
import { bindable, type SqliteDriver, statementCache } from './sqlite.ts';
import type { WorkerHandle } from './worker.ts';

export const nodeRuntime: Runtime = {
  name: 'node',
  openSqlite,
  listen: listenNodeHttp,
  spawnWorker(url): WorkerHandle {
    // Node runs only the bundle, where each worker is built beside it as NAME.mjs (scripts/build.ts).
    const w = new Worker(new URL(url.href.replace(/\.ts$/, '.mjs')));
    w.unref();
    return {
      post: (m) => w.postMessage(m),
      onMessage: (fn) => w.on('message', fn),
      onExit: (fn) => {
        w.on('error', (e) => fn(e.message));
        w.on('exit', () => fn('exited'));
      },
      terminate: () => void w.terminate(),
      ref: () => w.ref(),
      unref: () => w.unref(),
    };
  },
  parentPort() {
    const port = parentPort;
    if (!port) throw new Error('not in a worker');
    return { post: (m) => port.postMessage(m), onMessage: (fn) => port.on('message', fn) };
  },
  ...nodeCrypto,
  rs256Provider: 'node:crypto',
  importRsaPrivateJwk,
  signRs256,
  boundHeap: () => () => {},
  releaseStartupPages: async () => ({ released: false, why: 'released only under Bun' }),
};

/**
 * better-sqlite3's get()/all() throw on a statement that returns no rows (bun:sqlite runs it and
 * returns nothing), so such a statement is run and an empty result returned.
 */
async function openSqlite(path: string, opts: { readonly?: boolean } = {}): Promise<SqliteDriver> {
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(path, { readonly: opts.readonly ?? false, fileMustExist: opts.readonly ?? false });
  return {
    engine: 'sqlite',
    exec: (sql) => {
      db.exec(sql);
    },
    prepare: statementCache((sql) => {
      const stmt = db.prepare(sql);
      const returnsRows = stmt.reader;
      return {
        get: (...p: unknown[]) => {
          if (returnsRows) return stmt.get(...bindable(p));
          stmt.run(...bindable(p));
          return undefined;
        },
        all: (...p: unknown[]) => {
          if (returnsRows) return stmt.all(...bindable(p));
          stmt.run(...bindable(p));
          return [];
        },
        run: (...p: unknown[]) => ({ changes: stmt.run(...bindable(p)).changes }),
      };
    }),
    transaction: (fn) => db.transaction(fn).immediate(),
    get inTransaction() {
      return db.inTransaction;
    },
    drizzle: async (schema) => (await import('drizzle-orm/better-sqlite3')).drizzle({ client: db, schema }),
    async backup(file) {
      db.prepare('VACUUM INTO ?').run(file);
    },
    close: () => db.close(),
  };
}
