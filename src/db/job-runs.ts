import type { Db } from './open.ts';

/**
 * Claims the run of a job at one scheduled time (`slot`, unix seconds): true for the first instance to
 * ask, false for every other instance sharing the database, and for a slot not later than the last
 * one claimed. One statement, so no two instances can both win it.
 */
export function claimJobRun(db: Db, name: string, slot: number, now: number): boolean {
  return (
    db.sql
      .prepare(
        `INSERT INTO job_runs (name, slot, ran_at) VALUES (?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET slot = excluded.slot, ran_at = excluded.ran_at
         WHERE job_runs.slot < excluded.slot`,
      )
      .run(name, slot, now).changes > 0
  );
}
