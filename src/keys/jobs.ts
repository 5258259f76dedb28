import type { Job } from '../jobs.ts';
import { rotateDue } from './rotation.ts';

export const keysJobs: Job[] = [
  {
    name: 'keys.rotate',
    // Every minute: publication and removal times are then met within a minute.
    schedule: '0 * * * * *',
    runAtStart: true,
    async run(ctx) {
      const r = await rotateDue(ctx);
      if (r.published || r.promoted || r.removed.length || r.orphansRemoved.length) {
        ctx.log.info('signing keys changed', { ...r });
      }
    },
  },
];
