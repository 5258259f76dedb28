import { Cron } from 'croner';
import { allJobs } from './all-jobs.ts';
import type { AppContext } from './context.ts';
import { claimJobRun } from './db/job-runs.ts';
import { isoTime, unix, unixOf } from './platform/clock.ts';

/** A scheduled job only calls a domain function with the current time; tests call that function directly. */
export interface Job {
  name: string;
  /** Cron pattern (with seconds), e.g. "*\/30 * * * * *". */
  schedule: string;
  run(ctx: AppContext): Promise<void> | void;
  /** Also run once at start, in this instance whatever the others do. */
  runAtStart?: boolean;
  /**
   * Run by every instance at every scheduled time, for a job whose effect is on its own process.
   * Any other job runs in one instance per scheduled time, of all those sharing the database.
   */
  everyInstance?: boolean;
}

/**
 * Runs a job for the scheduled time `slot` (unix seconds) unless another instance has claimed it;
 * returns whether this one ran it. The cron callback calls this; tests call it with a slot of their own.
 */
export async function runScheduled(ctx: AppContext, job: Job, slot: number): Promise<boolean> {
  if (!job.everyInstance) {
    const claimed = claimJobRun(ctx.db, job.name, slot, unix(ctx.clock));
    ctx.log.debug(claimed ? 'scheduled job' : 'scheduled job run by another instance', {
      job: job.name,
      slot: isoTime(slot),
    });
    if (!claimed) return false;
  }
  await job.run(ctx);
  return true;
}

/**
 * The scheduled time a run belongs to: the latest at or before the moment croner fired it (never
 * early), so every instance names the same time for it even when their clocks differ a little.
 */
const slotOf = (cron: Cron) =>
  unixOf(cron.previousRuns(1, new Date((cron.currentRun() ?? new Date()).getTime() + 1))[0]!);

export function startJobs(ctx: AppContext, list: Job[] = allJobs()): () => void {
  const crons = list.map(
    (job) =>
      new Cron(
        job.schedule,
        { protect: true, catch: (e) => ctx.log.error('job failed', { job: job.name, error: String(e) }) },
        async (self: Cron) => {
          await runScheduled(ctx, job, slotOf(self));
        },
      ),
  );
  for (const job of list) {
    if (job.runAtStart) {
      Promise.resolve(job.run(ctx)).catch((e) =>
        ctx.log.error('job failed', { job: job.name, error: String(e) }),
      );
    }
  }
  return () => {
    for (const c of crons) c.stop();
  };
}
