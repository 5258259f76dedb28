import type { Job } from '../jobs.ts';
import { expireConsents } from './lifecycle.ts';

export const consentJobs: Job[] = [
  {
    name: 'consent.expire',
    schedule: '15 * * * * *',
    runAtStart: true,
    async run(ctx) {
      await expireConsents(ctx);
    },
  },
];
