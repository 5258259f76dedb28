import type { Job } from '../jobs.ts';
import { pruneProductionSecrets } from './production-secret.ts';

export const appsJobs: Job[] = [
  {
    name: 'apps.unrevealed-secrets',
    schedule: '0 */10 * * * *',
    run: (ctx) => {
      pruneProductionSecrets(ctx);
    },
  },
];
