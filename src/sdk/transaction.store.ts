import type { Transaction } from './transaction.ts';

/**
 * Where transactions live between the redirect and the callback. Implementations must make
 * `markConsumed` atomic: of two concurrent callbacks for one transaction, exactly one gets `true`.
 */
export interface TransactionStore {
  save(tx: Transaction): Promise<void> | void;
  /** Every transaction still held for this browser session. */
  findBySession(sessionId: string): Promise<Transaction[]> | Transaction[];
  /** Sets `consumed`; true only for the caller that changed it from false. */
  markConsumed(id: string): Promise<boolean> | boolean;
  discard(id: string): Promise<void> | void;
  /** Drops transactions created before `before` (abandoned sign-ins). */
  prune(before: Date): Promise<void> | void;
}

/** For a single process (and tests): state is lost on restart, which only cancels pending sign-ins. */
export function memoryTransactionStore(): TransactionStore {
  const byId = new Map<string, Transaction>();
  return {
    save(tx) {
      byId.set(tx.id, { ...tx });
    },
    findBySession(sessionId) {
      return [...byId.values()].filter((t) => t.sessionId === sessionId).map((t) => ({ ...t }));
    },
    markConsumed(id) {
      const tx = byId.get(id);
      if (!tx || tx.consumed) return false;
      tx.consumed = true;
      return true;
    },
    discard(id) {
      byId.delete(id);
    },
    prune(before) {
      for (const [id, tx] of byId) if (Date.parse(tx.createdAt) < before.getTime()) byId.delete(id);
    },
  };
}

/**
 * The part of a synchronous SQLite driver the SQLite store uses. bun:sqlite's `Database` and
 * better-sqlite3's both fit as they are, so the SDK imports neither.
 */
export interface SqliteLike {
  prepare(sql: string): {
    get(...params: unknown[]): unknown;
    all(...params: unknown[]): unknown[];
    run(...params: unknown[]): { changes: number | bigint };
  };
}

interface Row {
  id: string;
  session_id: string;
  state: string;
  nonce: string;
  code_verifier: string;
  redirect_uri: string;
  created_at: string;
  consumed: number;
  display: string;
  return_to: string | null;
  max_age: number | null;
  prompt: string | null;
  claims: string | null;
}

const toTransaction = (r: Row): Transaction => ({
  id: r.id,
  sessionId: r.session_id,
  state: r.state,
  nonce: r.nonce,
  codeVerifier: r.code_verifier,
  redirectUri: r.redirect_uri,
  createdAt: r.created_at,
  consumed: r.consumed === 1,
  display: r.display === 'popup' ? 'popup' : 'page',
  ...(r.return_to === null ? {} : { returnTo: r.return_to }),
  ...(r.max_age === null ? {} : { maxAge: r.max_age }),
  ...(r.prompt === 'none' || r.prompt === 'login' || r.prompt === 'consent' ? { prompt: r.prompt } : {}),
  ...(r.claims === null ? {} : { claims: r.claims }),
});

/**
 * Transactions in a table of the application's own SQLite database, so they survive restarts and are
 * shared by every process using that file. The table is created on first use.
 */
export function sqliteTransactionStore(db: SqliteLike, table = 'verity_transactions'): TransactionStore {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(table)) throw new TypeError('table must be a plain SQL identifier');
  db.prepare(
    `CREATE TABLE IF NOT EXISTS ${table} (
      id TEXT PRIMARY KEY,
      session_id TEXT NOT NULL,
      state TEXT NOT NULL,
      nonce TEXT NOT NULL,
      code_verifier TEXT NOT NULL,
      redirect_uri TEXT NOT NULL,
      created_at TEXT NOT NULL,
      consumed INTEGER NOT NULL DEFAULT 0,
      display TEXT NOT NULL,
      return_to TEXT,
      max_age INTEGER,
      prompt TEXT,
      claims TEXT
    )`,
  ).run();
  // A table made by an earlier version of the SDK gains the columns it lacks. Another process may be
  // adding one at the same moment, or hold the write lock: only a column still missing is an error.
  const has = (column: string) =>
    (db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).some((c) => c.name === column);
  for (const [column, type] of [
    ['max_age', 'INTEGER'],
    ['prompt', 'TEXT'],
    ['claims', 'TEXT'],
  ] as const)
    if (!has(column))
      try {
        db.prepare(`ALTER TABLE ${table} ADD COLUMN ${column} ${type}`).run();
      } catch (e) {
        if (!has(column)) throw e;
      }
  db.prepare(`CREATE INDEX IF NOT EXISTS ${table}_session ON ${table} (session_id)`).run();
  return {
    save(tx) {
      db.prepare(
        `INSERT INTO ${table} (id, session_id, state, nonce, code_verifier, redirect_uri, created_at, consumed, display, return_to, max_age, prompt, claims)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        tx.id,
        tx.sessionId,
        tx.state,
        tx.nonce,
        tx.codeVerifier,
        tx.redirectUri,
        tx.createdAt,
        tx.consumed ? 1 : 0,
        tx.display,
        tx.returnTo ?? null,
        tx.maxAge ?? null,
        tx.prompt ?? null,
        tx.claims ?? null,
      );
    },
    findBySession(sessionId) {
      return (db.prepare(`SELECT * FROM ${table} WHERE session_id = ?`).all(sessionId) as Row[]).map(
        toTransaction,
      );
    },
    markConsumed(id) {
      // One conditional UPDATE: SQLite serialises writers, so only one caller sees a changed row.
      return (
        Number(
          db.prepare(`UPDATE ${table} SET consumed = 1 WHERE id = ? AND consumed = 0`).run(id).changes,
        ) === 1
      );
    },
    discard(id) {
      db.prepare(`DELETE FROM ${table} WHERE id = ?`).run(id);
    },
    prune(before) {
      // ISO 8601 UTC strings of one format sort like the times they name.
      db.prepare(`DELETE FROM ${table} WHERE created_at < ?`).run(before.toISOString());
    },
  };
}
