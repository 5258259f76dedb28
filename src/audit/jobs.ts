import type { Job } from '../jobs.ts';
import { checkClock } from './clock-check.ts';

export const auditJobs: Job[] = [
  {
    name: 'clock.check',
    schedule: '30 * * * * *',
    runAtStart: true,
    // Each instance's own clock.
    everyInstance: true,
    run: (ctx) => {
      checkClock(ctx);
    },
  },
];
