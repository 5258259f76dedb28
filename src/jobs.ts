import { Cron } from 'croner';
import { allJobs } from './all-jobs.ts';
import type { AppContext } from './context.ts';

/** A scheduled job only calls a domain function with the current time; tests call that function directly. */
export interface Job {
  name: string;
  /** Cron pattern (with seconds), e.g. "*\/30 * * * * *". */
  schedule: string;
  run(ctx: AppContext): Promise<void> | void;
  /** Also run once at start. */
  runAtStart?: boolean;
}

export function startJobs(ctx: AppContext, list: Job[] = allJobs()): () => void {
  const crons = list.map(
    (job) =>
      new Cron(
        job.schedule,
        { protect: true, catch: (e) => ctx.log.error('job failed', { job: job.name, error: String(e) }) },
        async () => {
          await job.run(ctx);
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
