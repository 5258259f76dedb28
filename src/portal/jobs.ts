import type { Job } from '../jobs.ts';
import { pruneResults } from './results.ts';

export const portalJobs: Job[] = [
  {
    name: 'developer.portal-results',
    schedule: '15 */10 * * * *',
    run: (ctx) => {
      pruneResults(ctx);
    },
  },
];
