import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { applications } from './applications.ts';
import { flag, time } from './columns.ts';

export const webhookEndpoints = sqliteTable(
  'webhook_endpoints',
  {
    id: text('id').primaryKey(),
    applicationId: text('application_id')
      .notNull()
      .references(() => applications.id, { onDelete: 'cascade' }),
    environment: text('environment', { enum: ['sandbox', 'production'] }).notNull(),
    url: text('url').notNull(),
    /** JSON array of subscribed event kinds. */
    events: text('events').notNull(),
    description: text('description').notNull().default(''),
    enabled: flag('enabled').notNull().default(true),
    createdAt: time('created_at').notNull(),
    updatedAt: time('updated_at').notNull(),
  },
  (t) => [index('webhook_endpoints_app').on(t.applicationId, t.environment)],
);

/** Signing secrets, encrypted at rest; during a rotation two are valid at once. */
export const webhookSecrets = sqliteTable(
  'webhook_secrets',
  {
    id: text('id').primaryKey(),
    endpointId: text('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    ciphertext: text('ciphertext').notNull(),
    createdAt: time('created_at').notNull(),
    expiresAt: time('expires_at'),
  },
  (t) => [index('webhook_secrets_endpoint').on(t.endpointId)],
);

/** The outbox: written in the same transaction as the change that causes the event. */
export const webhookEvents = sqliteTable(
  'webhook_events',
  {
    id: text('id').primaryKey(),
    type: text('type').notNull(),
    applicationId: text('application_id').notNull(),
    environment: text('environment', { enum: ['sandbox', 'production'] }).notNull(),
    /** The exact JSON body sent on every attempt, so one id never has two bodies. */
    body: text('body').notNull(),
    createdAt: time('created_at').notNull(),
  },
  // Pruning looks events up by age; nothing reads them by application.
  (t) => [index('webhook_events_created').on(t.createdAt)],
);

export const webhookDeliveries = sqliteTable(
  'webhook_deliveries',
  {
    id: text('id').primaryKey(),
    eventId: text('event_id')
      .notNull()
      .references(() => webhookEvents.id, { onDelete: 'cascade' }),
    endpointId: text('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    status: text('status', { enum: ['pending', 'delivered', 'failed'] }).notNull(),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: time('next_attempt_at').notNull(),
    /** Set while a dispatcher holds the row; an expired lease is picked up again after a crash. */
    leaseExpiresAt: time('lease_expires_at'),
    /** Random per claim, so a worker whose lease ran out cannot record over the next holder's attempt. */
    leaseToken: text('lease_token'),
    createdAt: time('created_at').notNull(),
    updatedAt: time('updated_at').notNull(),
  },
  (t) => [
    index('webhook_deliveries_due').on(t.status, t.nextAttemptAt),
    index('webhook_deliveries_endpoint_due').on(t.endpointId, t.status, t.nextAttemptAt),
    index('webhook_deliveries_lease').on(t.leaseExpiresAt),
    index('webhook_deliveries_event').on(t.eventId),
  ],
);

/** One row per attempt: the delivery history. */
export const webhookAttempts = sqliteTable(
  'webhook_attempts',
  {
    id: text('id').primaryKey(),
    deliveryId: text('delivery_id')
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: 'cascade' }),
    eventId: text('event_id').notNull(),
    eventType: text('event_type').notNull(),
    endpointId: text('endpoint_id').notNull(),
    attempt: integer('attempt').notNull(),
    /** delivered (2xx), retrying (failed, another attempt scheduled) or failed (no attempts left). */
    status: text('status', { enum: ['delivered', 'retrying', 'failed'] }).notNull(),
    responseStatus: integer('response_status'),
    error: text('error'),
    durationMs: integer('duration_ms').notNull(),
    attemptedAt: time('attempted_at').notNull(),
    nextAttemptAt: time('next_attempt_at'),
  },
  (t) => [
    index('webhook_attempts_endpoint').on(t.endpointId, t.attemptedAt),
    index('webhook_attempts_event').on(t.eventId),
    index('webhook_attempts_time').on(t.attemptedAt, t.id),
  ],
);
