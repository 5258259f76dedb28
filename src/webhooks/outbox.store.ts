import type { AppContext } from '../context.ts';
import { timeOrderedUuid } from '../crypto/located-secret.ts';
import { randomId } from '../crypto/tokens.ts';
import type { Environment } from '../environment.ts';
import { isoTime, unix, unixOf } from '../platform/clock.ts';
import type { EventData, EventEnvelope, EventType } from './events.ts';

export interface EnqueueInput<T extends EventType> {
  type: T;
  applicationId: string;
  environment: Environment;
  data: EventData[T];
  /** Only this endpoint (test events); otherwise every enabled endpoint subscribed to the type. */
  endpointId?: string;
}

/** What queuing needs: the database, the time, and the signal that wakes this process's dispatcher. */
export type OutboxContext = Pick<AppContext, 'db' | 'clock' | 'signals'>;

/**
 * Writes an event and one delivery row per subscribed endpoint, or nothing when no endpoint takes it
 * (docs/webhooks.md, "Managing endpoints"). Call it inside the transaction of the change that causes
 * the event, so both commit or neither does. The body is serialised once here and sent byte-for-byte
 * on every attempt.
 */
export function enqueueEvent<T extends EventType>(
  ctx: OutboxContext,
  input: EnqueueInput<T>,
): EventEnvelope<T> {
  const { db } = ctx;
  const now = ctx.clock.now();
  const t = unixOf(now);
  const envelope: EventEnvelope<T> = {
    // Time-ordered, so the insert appends to the id index (a busy token endpoint writes many).
    id: timeOrderedUuid(now),
    type: input.type,
    createdAt: isoTime(now),
    data: input.data,
  };
  // Subscriptions are filtered here rather than with json_each in SQL: setting up the table-valued
  // function costs more than ten times the indexed lookup, on every token exchange.
  const endpoints = input.endpointId
    ? db.sql.prepare<{ id: string }>('SELECT id FROM webhook_endpoints WHERE id = ?').all(input.endpointId)
    : db.sql
        .prepare<{ id: string; events: string }>(
          'SELECT id, events FROM webhook_endpoints WHERE application_id = ? AND environment = ? AND enabled = 1',
        )
        .all(input.applicationId, input.environment)
        .filter((e) => (JSON.parse(e.events) as string[]).includes(input.type));
  // An event no endpoint receives is not stored: nothing could ever send it or show it.
  if (endpoints.length === 0) return envelope;
  db.sql
    .prepare(
      'INSERT INTO webhook_events (id, type, application_id, environment, body, created_at) VALUES (?, ?, ?, ?, ?, ?)',
    )
    .run(envelope.id, envelope.type, input.applicationId, input.environment, JSON.stringify(envelope), t);
  const insert = db.sql.prepare(
    `INSERT INTO webhook_deliveries (id, event_id, endpoint_id, status, attempts, next_attempt_at, created_at, updated_at)
     VALUES (?, ?, ?, 'pending', 0, ?, ?, ?)`,
  );
  for (const e of endpoints) insert.run(randomId('dlv_'), envelope.id, e.id, t, t, t);
  notifyEnqueued(ctx, endpoints.length);
  return envelope;
}

/**
 * Queues the stored event again for these endpoints (a redelivery): same id, same body. An endpoint
 * whose delivery of the event is still pending and not in flight is simply made due now instead of
 * getting a second row; one in flight gets a row of its own, which a failed attempt cannot put on the
 * retry schedule. Returns the delivery ids.
 */
export function requeueEvent(ctx: OutboxContext, eventId: string, endpointIds: string[]): string[] {
  const { db } = ctx;
  const t = unix(ctx.clock);
  const ids: string[] = [];
  for (const endpointId of endpointIds) {
    const pending = db.sql
      .prepare<{ id: string }>(
        `SELECT id FROM webhook_deliveries WHERE event_id = ? AND endpoint_id = ? AND status = 'pending'
           AND (lease_expires_at IS NULL OR lease_expires_at <= ?)
         ORDER BY created_at DESC LIMIT 1`,
      )
      .get(eventId, endpointId, t);
    if (pending) {
      db.sql
        .prepare(
          `UPDATE webhook_deliveries
           SET next_attempt_at = CASE WHEN next_attempt_at < ? THEN next_attempt_at ELSE ? END, updated_at = ?
           WHERE id = ?`,
        )
        .run(t, t, t, pending.id);
      ids.push(pending.id);
      continue;
    }
    const id = randomId('dlv_');
    db.sql
      .prepare(
        `INSERT INTO webhook_deliveries (id, event_id, endpoint_id, status, attempts, next_attempt_at, created_at, updated_at)
         VALUES (?, ?, ?, 'pending', 0, ?, ?, ?)`,
      )
      .run(id, eventId, endpointId, t, t, t);
    ids.push(id);
  }
  notifyEnqueued(ctx, ids.length);
  return ids;
}

/**
 * Wakes this process's dispatcher once the deliveries are committed: never for a transaction that
 * rolls back, and once for a batch unit even when the batch is replayed.
 */
function notifyEnqueued(ctx: OutboxContext, deliveries: number): void {
  if (deliveries > 0) ctx.db.afterCommit(() => ctx.signals.emit('webhooks', deliveries));
}
