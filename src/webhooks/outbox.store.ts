import { timeOrderedUuid } from '../crypto/located-secret.ts';
import { randomId } from '../crypto/tokens.ts';
import type { Db } from '../db/open.ts';
import type { Environment } from '../environment.ts';
import { type Clock, isoTime, unix, unixOf } from '../platform/clock.ts';
import type { EventData, EventEnvelope, EventType } from './events.ts';

export interface EnqueueInput<T extends EventType> {
  type: T;
  applicationId: string;
  environment: Environment;
  data: EventData[T];
  /** Only this endpoint (test events); otherwise every enabled endpoint subscribed to the type. */
  endpointId?: string;
}

/**
 * Writes an event and one delivery row per subscribed endpoint. Call it inside the transaction of the
 * change that causes the event, so both commit or neither does. The body is serialised once here and
 * sent byte-for-byte on every attempt.
 */
export function enqueueEvent<T extends EventType>(
  db: Db,
  clock: Clock,
  input: EnqueueInput<T>,
): EventEnvelope<T> {
  const now = clock.now();
  const t = unixOf(now);
  const envelope: EventEnvelope<T> = {
    // Time-ordered, so the insert appends to the id index (the token endpoint writes one per exchange).
    id: timeOrderedUuid(now),
    type: input.type,
    createdAt: isoTime(now),
    data: input.data,
  };
  db.sql
    .prepare(
      'INSERT INTO webhook_events (id, type, application_id, environment, body, created_at) VALUES (?, ?, ?, ?, ?, ?)',
    )
    .run(envelope.id, envelope.type, input.applicationId, input.environment, JSON.stringify(envelope), t);
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
  const insert = db.sql.prepare(
    `INSERT INTO webhook_deliveries (id, event_id, endpoint_id, status, attempts, next_attempt_at, created_at, updated_at)
     VALUES (?, ?, ?, 'pending', 0, ?, ?, ?)`,
  );
  for (const e of endpoints) insert.run(randomId('dlv_'), envelope.id, e.id, t, t, t);
  notifyEnqueued(db, endpoints.length);
  return envelope;
}

/**
 * Queues the stored event again for these endpoints (a redelivery): same id, same body. An endpoint
 * whose delivery of the event is still pending and not in flight is simply made due now instead of
 * getting a second row. Returns the delivery ids.
 */
export function requeueEvent(db: Db, clock: Clock, eventId: string, endpointIds: string[]): string[] {
  const t = unix(clock);
  const ids: string[] = [];
  for (const endpointId of endpointIds) {
    const pending = db.sql
      .prepare<{ id: string }>(
        `SELECT id FROM webhook_deliveries WHERE event_id = ? AND endpoint_id = ? AND status = 'pending'
         ORDER BY created_at DESC LIMIT 1`,
      )
      .get(eventId, endpointId);
    if (pending) {
      db.sql
        .prepare(
          `UPDATE webhook_deliveries SET next_attempt_at = MIN(next_attempt_at, ?), updated_at = ? WHERE id = ?`,
        )
        .run(t, t, pending.id);
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
  notifyEnqueued(db, ids.length);
  return ids;
}

type EnqueueListener = (deliveries: number) => void;
const listeners = new WeakMap<Db, Set<EnqueueListener>>();

/**
 * Called after deliveries are queued on this database handle, so the dispatcher of this process can
 * start at once instead of waiting for its next scheduled run. Listeners run on a later task: the
 * enqueueing transaction is synchronous, so by then it has committed (or rolled back, in which case
 * the dispatcher finds nothing new).
 */
export function onEnqueued(db: Db, fn: EnqueueListener): () => void {
  let set = listeners.get(db);
  if (!set) {
    set = new Set();
    listeners.set(db, set);
  }
  set.add(fn);
  return () => set.delete(fn);
}

function notifyEnqueued(db: Db, deliveries: number): void {
  const set = listeners.get(db);
  if (!set?.size || deliveries === 0) return;
  setTimeout(() => {
    for (const fn of set) fn(deliveries);
  }, 0);
}
