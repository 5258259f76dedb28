import { nextTurn } from '../platform/next-turn.ts';
import type { SqlDriver } from '../platform/sql-driver.ts';
import type { Statement } from '../platform/sqlite.ts';

export type Read<Row> = Pick<Statement<Row>, 'get' | 'all'>;

/** Reads for hot paths; see turnSnapshot. */
export interface Reads {
  prepare<Row = Record<string, unknown>>(sql: string): Read<Row>;
  /** Ends the open snapshot, for what must wait for every reader (a TRUNCATE checkpoint). */
  release(): void;
  /**
   * `read()`'s value, kept for the rest of the snapshot it was read in: a value of the database cannot
   * change within one snapshot. Read every time where there is none.
   */
  once<T>(key: string, read: () => T): T;
}

/** Reads on the connection itself (PostgreSQL, an in-memory or read-only SQLite database). */
export const directReads = (sql: SqlDriver): Reads => ({
  prepare: (s) => sql.prepare(s),
  release() {},
  once: (_key, read) => read(),
});

/**
 * Reads in one read transaction per turn of the event loop, on `reader`, a second connection to the
 * same SQLite file that never writes: in WAL mode a statement outside a transaction takes and drops a
 * read lock each time, which costs more than a primary-key lookup (docs/architecture.md#reads).
 *
 * As fresh as a read of its own: the snapshot starts at the turn's first read, after every request
 * handled in the turn arrived; it starts again once `main` has changed anything, so this process
 * always reads its own writes; and inside a transaction of `main`, reads go to that transaction.
 */
export function turnSnapshot(main: SqlDriver, reader: SqlDriver): Reads {
  reader.exec('PRAGMA query_only = 1');
  reader.exec('PRAGMA busy_timeout = 5000');
  // Rows changed through `main` since it opened, however (drizzle, batches, triggers): a statement
  // that reads no table, so it takes no lock.
  const changes = main.prepare<{ n: number }>('SELECT total_changes() AS n');
  let open = false;
  let seenChanges = -1;
  /** What `once` read in the open snapshot. */
  const kept = new Map<string, unknown>();
  const release = () => {
    if (!open) return;
    open = false;
    kept.clear();
    reader.exec('ROLLBACK');
  };
  /** Whether to read on `reader`, with its snapshot started if it needs one. */
  const onReader = () => {
    if (main.inTransaction) return false;
    const n = changes.get()!.n;
    if (open && n === seenChanges) return true;
    kept.clear();
    if (open) reader.exec('ROLLBACK');
    else nextTurn(release);
    reader.exec('BEGIN');
    open = true;
    seenChanges = n;
    return true;
  };
  type Run = (...params: unknown[]) => unknown;
  // A failed read ends the snapshot, so nothing is left open after an error.
  const either =
    (onMain: Run, onSnapshot: Run): Run =>
    (...p) => {
      if (!onReader()) return onMain(...p);
      try {
        return onSnapshot(...p);
      } catch (e) {
        release();
        throw e;
      }
    };
  const cache = new Map<string, Read<unknown>>();
  const prepare = (sql: string): Read<unknown> => {
    let statement = cache.get(sql);
    if (!statement) {
      const [m, r] = [main.prepare(sql), reader.prepare(sql)];
      statement = { get: either(m.get, r.get), all: either(m.all, r.all) } as Read<unknown>;
      cache.set(sql, statement);
    }
    return statement;
  };
  const once = <T>(key: string, read: () => T): T => {
    if (!onReader()) return read();
    if (kept.has(key)) return kept.get(key) as T;
    const value = read();
    kept.set(key, value);
    return value;
  };
  return { prepare: prepare as Reads['prepare'], release, once };
}
