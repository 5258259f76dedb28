import type { Job } from '../jobs.ts';
import { pruneResults } from './results.ts';

export const developerJobs: Job[] = [
  {
    name: 'developer.portal-results',
    schedule: '15 */10 * * * *',
    run: (ctx) => {
      pruneResults(ctx);
    },
  },
];
