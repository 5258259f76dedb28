import { nextTurn } from '../platform/next-turn.ts';
import type { SqliteDriver } from '../platform/sqlite.ts';

/**
 * Group commit. Every unit of work queued during one turn of the event loop runs, in order, inside a
 * single BEGIN IMMEDIATE transaction, each unit in its own savepoint: a unit that throws is rolled
 * back alone and its promise rejects, while the others commit. A promise resolves only after COMMIT,
 * so a caller that awaits it never answers for a write that is not in the database.
 *
 * Why: in WAL mode most of a small transaction's cost is the commit (writing its pages to the log),
 * and concurrent token exchanges touch the same index pages. Fifty exchanges in flight then pay for
 * one commit instead of fifty.
 */
export type WriteBatch = <T>(unit: () => T) => Promise<T>;

interface Queued {
  unit: () => unknown;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

export function createWriteBatch(sql: SqliteDriver): WriteBatch {
  let queue: Queued[] = [];
  const run = (statement: string) => sql.prepare(statement).run();

  function flush() {
    const units = queue;
    queue = [];
    const outcomes: (() => void)[] = [];
    try {
      run('BEGIN IMMEDIATE');
      try {
        for (const q of units) {
          run('SAVEPOINT batch_unit');
          try {
            const value = q.unit();
            run('RELEASE batch_unit');
            outcomes.push(() => q.resolve(value));
          } catch (e) {
            run('ROLLBACK TO batch_unit');
            run('RELEASE batch_unit');
            outcomes.push(() => q.reject(e));
          }
        }
        run('COMMIT');
      } catch (e) {
        try {
          run('ROLLBACK');
        } catch {
          // COMMIT failing may already have rolled back; the first error is the one to report.
        }
        throw e;
      }
    } catch (e) {
      for (const q of units) q.reject(e);
      return;
    }
    for (const settle of outcomes) settle();
  }

  return <T>(unit: () => T) =>
    new Promise<T>((resolve, reject) => {
      if (queue.length === 0) nextTurn(flush);
      queue.push({ unit, resolve: resolve as (v: unknown) => void, reject });
    });
}
