import type { Job } from '../jobs.ts';
import { unix } from '../platform/clock.ts';
import { pruneWebhookHistory } from './deliveries.ts';
import { startDispatcher } from './dispatcher.ts';
import { deleteExpiredSecrets } from './endpoints.ts';

export const webhooksJobs: Job[] = [
  {
    // The dispatcher is also woken at once when this process queues an event; this run picks up
    // retries coming due, expired leases, and events queued by other processes (the CLI).
    name: 'webhooks.dispatch',
    schedule: '*/2 * * * * *',
    runAtStart: true,
    everyInstance: true,
    run: (ctx) => startDispatcher(ctx).wake(),
  },
  {
    name: 'webhooks.expired-secrets',
    schedule: '0 */10 * * * *',
    run: (ctx) => {
      deleteExpiredSecrets(ctx, unix(ctx.clock));
    },
  },
  {
    name: 'webhooks.history-retention',
    schedule: '0 40 3 * * *',
    run: (ctx) => {
      pruneWebhookHistory(ctx, unix(ctx.clock));
    },
  },
];
