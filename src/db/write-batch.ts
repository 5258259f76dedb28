import { nextTurn } from '../platform/next-turn.ts';
import type { SqliteDriver } from '../platform/sqlite.ts';
import { CommitHooks } from './after-commit.ts';

/**
 * Group commit. Every unit of work queued during one turn of the event loop runs, in order, inside a
 * single BEGIN IMMEDIATE transaction. A unit that throws is rolled back alone and its promise
 * rejects, while the others commit. A promise resolves only after COMMIT, so a caller that awaits it
 * never answers for a write that is not in the database.
 *
 * Why: in WAL mode most of a small transaction's cost is the commit (writing its pages to the log),
 * and concurrent token exchanges touch the same index pages. Fifty exchanges in flight then pay for
 * one commit instead of fifty.
 *
 * Units run first without savepoints (two statements per unit saved on the token endpoint). Only if
 * one throws is the transaction rolled back and the batch run again with a savepoint around each
 * unit, so a unit may run twice: it must have no effect outside the database that a second run
 * would repeat. Such effects go to `afterCommit` (see after-commit.ts): only the committed run's
 * callbacks are kept, and they run once, after COMMIT, before the units' promises resolve.
 */
export type WriteBatch = <T>(unit: () => T) => Promise<T>;

interface Queued {
  unit: () => unknown;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

type Outcome = { ok: true; value: unknown; hooks: (() => void)[] } | { ok: false; error: unknown };

export function createWriteBatch(sql: SqliteDriver, commitHooks = new CommitHooks()): WriteBatch {
  let queue: Queued[] = [];
  const run = (statement: string) => sql.prepare(statement).run();

  /** Runs the units in one transaction; undefined when one threw and nothing was kept. */
  function optimistic(units: Queued[]): Outcome[] | undefined {
    const outcomes: Outcome[] = [];
    for (const q of units) {
      try {
        outcomes.push({ ok: true, ...commitHooks.collect(q.unit) });
      } catch {
        return undefined;
      }
    }
    return outcomes;
  }

  function isolated(units: Queued[]): Outcome[] {
    return units.map((q) => {
      run('SAVEPOINT batch_unit');
      try {
        const done = commitHooks.collect(q.unit);
        run('RELEASE batch_unit');
        return { ok: true, ...done };
      } catch (error) {
        run('ROLLBACK TO batch_unit');
        run('RELEASE batch_unit');
        return { ok: false, error };
      }
    });
  }

  function flush() {
    const units = queue;
    queue = [];
    let outcomes: Outcome[] | undefined;
    try {
      run('BEGIN IMMEDIATE');
      try {
        outcomes = optimistic(units);
        if (!outcomes) {
          run('ROLLBACK');
          run('BEGIN IMMEDIATE');
          outcomes = isolated(units);
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
    for (const o of outcomes!) if (o.ok) commitHooks.settle(o.hooks);
    units.forEach((q, i) => {
      const o = outcomes![i]!;
      if (o.ok) q.resolve(o.value);
      else q.reject(o.error);
    });
  }

  return <T>(unit: () => T) =>
    new Promise<T>((resolve, reject) => {
      if (queue.length === 0) nextTurn(flush);
      queue.push({ unit, resolve: resolve as (v: unknown) => void, reject });
    });
}
