import type { Job } from '../jobs.ts';
import { rotateDue, sweepTemporaryKeyFiles } from './rotation.ts';

export const keysJobs: Job[] = [
  {
    name: 'keys.rotate',
    // Every minute: publication and removal times are then met within a minute.
    schedule: '0 * * * * *',
    runAtStart: true,
    async run(ctx) {
      const r = await rotateDue(ctx);
      if (r.published.length || r.promoted.length || r.removed.length || r.orphansRemoved.length) {
        ctx.log.info('signing keys changed', { ...r });
      }
      // Also at start: a crash that left a temporary key file most likely also stopped the server.
      const swept = await sweepTemporaryKeyFiles(ctx);
      if (swept.length) {
        ctx.log.warn('removed temporary key files left by an interrupted write', { files: swept });
      }
    },
  },
];
