import { randomId } from '../crypto/tokens.ts';
import type { Db } from '../db/open.ts';
import { type Clock, unix } from '../platform/clock.ts';
import type { Environment, EventData, EventEnvelope, EventType } from './events.ts';

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
  const t = unix(clock);
  const envelope: EventEnvelope<T> = {
    id: crypto.randomUUID(),
    type: input.type,
    createdAt: now.toISOString(),
    data: input.data,
  };
  db.sql
    .prepare(
      'INSERT INTO webhook_events (id, type, application_id, environment, body, created_at) VALUES (?, ?, ?, ?, ?, ?)',
    )
    .run(envelope.id, envelope.type, input.applicationId, input.environment, JSON.stringify(envelope), t);
  const endpoints = input.endpointId
    ? db.sql.prepare<{ id: string }>('SELECT id FROM webhook_endpoints WHERE id = ?').all(input.endpointId)
    : db.sql
        .prepare<{ id: string }>(
          `SELECT e.id FROM webhook_endpoints e, json_each(e.events) j
           WHERE e.application_id = ? AND e.environment = ? AND e.enabled = 1 AND j.value = ?`,
        )
        .all(input.applicationId, input.environment, input.type);
  const insert = db.sql.prepare(
    `INSERT INTO webhook_deliveries (id, event_id, endpoint_id, status, attempts, next_attempt_at, created_at, updated_at)
     VALUES (?, ?, ?, 'pending', 0, ?, ?, ?)`,
  );
  for (const e of endpoints) insert.run(randomId('dlv_'), envelope.id, e.id, t, t, t);
  return envelope;
}
