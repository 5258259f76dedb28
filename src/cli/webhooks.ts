import { listAllAttempts, redeliverAsOperator } from '../webhooks/deliveries.ts';
import { type Command, environmentOption, positional, str, UsageError, withContext } from './command.ts';

export const webhooksCommands: Command[] = [
  {
    name: 'webhooks deliveries list',
    summary: 'Delivery attempts, newest first (one row per attempt).',
    usage:
      '[--app APP_ID] [--env sandbox|production] [--endpoint ID] [--event ID] [--status delivered|retrying|failed] [--limit N] [--cursor C]',
    options: {
      app: { type: 'string', description: 'only deliveries of this application' },
      env: { type: 'string', description: 'sandbox or production' },
      endpoint: { type: 'string', description: 'only deliveries to this endpoint' },
      event: { type: 'string', description: 'only deliveries of this event id' },
      status: { type: 'string', description: 'delivered, retrying or failed' },
      limit: { type: 'string', description: 'at most N rows' },
      cursor: { type: 'string', description: 'the next page, from the previous answer' },
    },
    async run(cli, args) {
      const env = environmentOption(args);
      const limitText = str(args, 'limit');
      if (limitText !== undefined && !/^\d+$/.test(limitText))
        throw new UsageError('--limit must be a number');
      await withContext(cli, (ctx) => {
        const page = listAllAttempts(ctx, {
          applicationId: str(args, 'app'),
          environment: env,
          endpointId: str(args, 'endpoint'),
          eventId: str(args, 'event'),
          status: str(args, 'status'),
          limit: limitText === undefined ? undefined : Number(limitText),
          cursor: str(args, 'cursor'),
        });
        const lines = page.deliveries.map(
          (d) =>
            `${d.attemptedAt}  ${d.status.padEnd(8)} ${String(d.responseStatus ?? '-').padEnd(4)} #${d.attempt} ${d.eventType} ${d.eventId} → ${d.endpointId}${d.error ? `  (${d.error})` : ''}${d.nextAttemptAt ? `  next ${d.nextAttemptAt}` : ''}`,
        );
        if (lines.length === 0) lines.push('No delivery attempts.');
        if (page.nextCursor) lines.push(`More: --cursor ${page.nextCursor}`);
        cli.print(lines.join('\n'), page);
      });
      return 0;
    },
  },
  {
    name: 'webhooks deliveries redeliver',
    summary: 'Queue a stored event again, with its original id and body.',
    usage: 'EVENT_ID [--endpoint ENDPOINT_ID]',
    options: { endpoint: { type: 'string', description: 'only to this endpoint (default: every endpoint)' } },
    async run(cli, args) {
      const eventId = positional(args, 0, 'EVENT_ID');
      await withContext(cli, (ctx) => {
        const result = redeliverAsOperator(ctx, eventId, str(args, 'endpoint'));
        cli.print(
          `Queued ${result.eventId} for ${result.deliveries.map((d) => d.endpointId).join(', ')}; a running server sends it within seconds.`,
          result,
        );
      });
      return 0;
    },
  },
];
