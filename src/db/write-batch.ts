import { nextTurn } from '../platform/next-turn.ts';
import { isConflict } from '../platform/postgres.ts';
import type { SqlDriver } from '../platform/sql-driver.ts';
import { CommitHooks } from './after-commit.ts';

/**
 * Group commit. Every unit of work queued during one turn of the event loop runs, in order, inside a
 * single write transaction. A unit that throws is rolled back alone and its promise
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

/** Thrown to roll back an optimistic run in which a unit failed. */
class RunIsolated extends Error {}

export function createWriteBatch(sql: SqlDriver, commitHooks = new CommitHooks()): WriteBatch {
  let queue: Queued[] = [];

  /** Runs the units in one go; throws RunIsolated (rolling everything back) when one of them throws. */
  function optimistic(units: Queued[]): Outcome[] {
    return units.map((q) => {
      try {
        return { ok: true, ...commitHooks.collect(q.unit) };
      } catch (e) {
        // A PostgreSQL conflict is the transaction's, not the unit's: the whole batch runs again.
        throw isConflict(e) ? e : new RunIsolated();
      }
    });
  }

  /** Each unit in a savepoint of its own (a nested transaction), so one that throws is undone alone. */
  function isolated(units: Queued[]): Outcome[] {
    return units.map((q) => {
      try {
        return { ok: true, ...sql.transaction(() => commitHooks.collect(q.unit)) };
      } catch (error) {
        if (isConflict(error)) throw error;
        return { ok: false, error };
      }
    });
  }

  function flush() {
    const units = queue;
    queue = [];
    let outcomes: Outcome[];
    try {
      try {
        outcomes = sql.transaction(() => optimistic(units));
      } catch (e) {
        if (!(e instanceof RunIsolated)) throw e;
        outcomes = sql.transaction(() => isolated(units));
      }
    } catch (e) {
      for (const q of units) q.reject(e);
      return;
    }
    for (const o of outcomes) if (o.ok) commitHooks.settle(o.hooks);
    units.forEach((q, i) => {
      const o = outcomes[i]!;
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
