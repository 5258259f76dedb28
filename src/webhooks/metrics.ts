import type { AppContext } from '../context.ts';
import { createDeliveryStore } from './delivery.store.ts';

/** Prometheus series for the outbox and the dispatcher, registered once per context. */
export function webhookMetrics(ctx: Pick<AppContext, 'metrics' | 'db'>) {
  const m = ctx.metrics;
  const pending = m.gauge(
    'verity_webhook_deliveries_pending',
    'Webhook deliveries waiting for their next attempt (read from the outbox at scrape time).',
  );
  const store = createDeliveryStore(ctx.db);
  pending.set(() => {
    try {
      return store.pendingCount();
    } catch {
      return Number.NaN;
    }
  });
  return {
    queued: m.counter('verity_webhook_deliveries_queued_total', 'Webhook deliveries queued by this process.'),
    delivered: m.counter(
      'verity_webhook_deliveries_delivered_total',
      'Webhook deliveries answered with a 2xx.',
    ),
    retried: m.counter(
      'verity_webhook_deliveries_retried_total',
      'Failed webhook attempts that scheduled another attempt, by cause.',
    ),
    failed: m.counter(
      'verity_webhook_deliveries_failed_total',
      'Webhook deliveries marked failed after their last attempt.',
    ),
    duration: m.histogram(
      'verity_webhook_attempt_duration_seconds',
      'Duration of webhook delivery attempts.',
    ),
  };
}
