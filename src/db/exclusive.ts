import type { Db } from './open.ts';

/** Advisory lock numbers (any fixed numbers would do, as long as they differ). */
export const LOCKS = { migrations: 7_318_001, signingKeys: 7_318_002 } as const;

/** The work a lock holder did not finish in this long is taken for stuck, and the waiter gives up. */
const WAIT_MS = 30_000;
const POLL_MS = 25;

/** The in-process queue of each lock: PostgreSQL's advisory locks are re-entrant within one session. */
const queues = new WeakMap<Db, Map<number, Promise<unknown>>>();

/**
 * Runs `fn` holding `lock` against every other holder: the other callers of this process, and on
 * PostgreSQL every instance and CLI run on the database (a session advisory lock). The lock is polled,
 * not awaited in the server, because a blocked statement would hold up this instance's one connection.
 */
export async function exclusively<T>(db: Db, lock: number, fn: () => Promise<T>): Promise<T> {
  const byLock = queues.get(db) ?? new Map<number, Promise<unknown>>();
  queues.set(db, byLock);
  const before = byLock.get(lock) ?? Promise.resolve();
  const run = before
    .catch(() => undefined)
    .then(async () => {
      if (db.engine !== 'postgres') return fn();
      await acquire(db, lock);
      try {
        return await fn();
      } finally {
        db.sql.exec(`SELECT pg_advisory_unlock(${lock})`);
      }
    });
  byLock.set(lock, run);
  return run;
}

async function acquire(db: Db, lock: number): Promise<void> {
  const tryLock = db.sql.prepare<{ ok: number }>(`SELECT pg_try_advisory_lock(${lock}) AS ok`);
  for (const start = Date.now(); !tryLock.get()!.ok; ) {
    if (Date.now() - start > WAIT_MS)
      throw new Error(`lock ${lock} was held by another process for ${WAIT_MS} ms`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}
