import { type AuditActor, recordAudit } from '../audit/audit.store.ts';
import type { AppContext } from '../context.ts';
import { base64url, fromBase64url } from '../crypto/encoding.ts';
import type { Environment } from '../environment.ts';
import { NotFoundError, ValidationError } from '../errors.ts';
import { isoTime } from '../platform/clock.ts';
import { assertApplicationAccess, type DeveloperPrincipal } from './access.ts';
import {
  type AttemptFilter,
  type AttemptStatus,
  createDeliveryStore,
  type DeliveryAttempt,
} from './delivery.store.ts';
import { createEndpointStore } from './endpoint.store.ts';
import { EVENT_TYPES } from './events.ts';
import { requeueEvent } from './outbox.store.ts';

export const ATTEMPT_STATUSES: AttemptStatus[] = ['delivered', 'retrying', 'failed'];
export const DEFAULT_HISTORY_LIMIT = 50;
export const MAX_HISTORY_LIMIT = 100;

/** One attempt as the history shows it (DESIGN.md §5). */
export interface AttemptView {
  id: string;
  eventId: string;
  eventType: string;
  endpointId: string;
  attempt: number;
  status: AttemptStatus;
  responseStatus: number | null;
  error: string | null;
  durationMs: number;
  attemptedAt: string;
  nextAttemptAt: string | null;
}

export const attemptView = (a: DeliveryAttempt): AttemptView => ({
  id: a.id,
  eventId: a.eventId,
  eventType: a.eventType,
  endpointId: a.endpointId,
  attempt: a.attempt,
  status: a.status,
  responseStatus: a.responseStatus,
  error: a.error,
  durationMs: a.durationMs,
  attemptedAt: isoTime(a.attemptedAt),
  nextAttemptAt: a.nextAttemptAt === null ? null : isoTime(a.nextAttemptAt),
});

export interface HistoryQuery {
  endpointId?: string;
  eventId?: string;
  /** One event kind (the portal's filter). */
  eventType?: string;
  status?: string;
  limit?: number;
  cursor?: string;
}

export interface HistoryPage {
  deliveries: AttemptView[];
  nextCursor: string | null;
}

// The cursor is the position of the last row returned; opaque to callers.
const encodeCursor = (a: DeliveryAttempt) => base64url(new TextEncoder().encode(`${a.attemptedAt}:${a.id}`));

function decodeCursor(cursor: string): { attemptedAt: number; id: string } {
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(fromBase64url(cursor));
    const m = /^(\d{1,12}):([\w-]{1,64})$/.exec(text);
    if (m) return { attemptedAt: Number(m[1]), id: m[2]! };
  } catch {
    // fall through
  }
  throw new ValidationError('invalid cursor', [
    { path: 'cursor', message: 'is not a cursor from a previous page' },
  ]);
}

function buildFilter(q: HistoryQuery): Omit<AttemptFilter, 'applicationId' | 'environment'> {
  const limit = q.limit ?? DEFAULT_HISTORY_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_HISTORY_LIMIT)
    throw new ValidationError('invalid limit', [
      { path: 'limit', message: `must be from 1 to ${MAX_HISTORY_LIMIT}` },
    ]);
  if (q.status !== undefined && !(ATTEMPT_STATUSES as string[]).includes(q.status))
    throw new ValidationError('invalid status', [
      { path: 'status', message: `must be one of ${ATTEMPT_STATUSES.join(', ')}` },
    ]);
  if (q.eventType !== undefined && !(EVENT_TYPES as readonly string[]).includes(q.eventType))
    throw new ValidationError('invalid event type', [
      { path: 'eventType', message: `must be one of ${EVENT_TYPES.join(', ')}` },
    ]);
  return {
    endpointId: q.endpointId,
    eventId: q.eventId,
    eventType: q.eventType,
    status: q.status as AttemptStatus | undefined,
    before: q.cursor ? decodeCursor(q.cursor) : undefined,
    limit,
  };
}

function page(ctx: AppContext, filter: AttemptFilter): HistoryPage {
  const rows = createDeliveryStore(ctx.db).listAttempts({ ...filter, limit: filter.limit + 1 });
  const more = rows.length > filter.limit;
  const shown = rows.slice(0, filter.limit);
  return { deliveries: shown.map(attemptView), nextCursor: more ? encodeCursor(shown.at(-1)!) : null };
}

/** One row per attempt of the application environment's endpoints, newest first. */
export function deliveryHistory(
  ctx: AppContext,
  dev: DeveloperPrincipal,
  applicationId: string,
  query: HistoryQuery,
): HistoryPage {
  assertApplicationAccess(ctx.db, dev, applicationId);
  return page(ctx, { ...buildFilter(query), applicationId, environment: dev.environment });
}

/** The operator's view: every application unless filtered. */
export function listAllAttempts(
  ctx: AppContext,
  query: HistoryQuery & { applicationId?: string; environment?: Environment },
): HistoryPage {
  return page(ctx, {
    ...buildFilter(query),
    applicationId: query.applicationId,
    environment: query.environment,
  });
}

export interface RedeliveryResult {
  eventId: string;
  deliveries: { id: string; endpointId: string }[];
}

/**
 * Sends a stored event again, with its original id and body: to one endpoint, or to every endpoint
 * that has had a delivery of it. The endpoint must belong to the event's application environment.
 */
function redeliver(
  ctx: AppContext,
  actor: AuditActor,
  event: { id: string; applicationId: string; environment: Environment },
  endpointId: string | undefined,
): RedeliveryResult {
  const endpoints = createEndpointStore(ctx.db);
  const deliveries = createDeliveryStore(ctx.db);
  return ctx.db.sql.transaction(() => {
    let targets: string[];
    if (endpointId !== undefined) {
      if (!endpoints.findIn(event.applicationId, event.environment, endpointId))
        throw new NotFoundError('No such webhook endpoint.');
      targets = [endpointId];
    } else {
      targets = deliveries.endpointsOfEvent(event.id);
      if (targets.length === 0)
        throw new ValidationError('the event has no endpoint to go to', [
          { path: 'endpointId', message: 'name the endpoint to deliver the event to' },
        ]);
    }
    const ids = requeueEvent(ctx, event.id, targets);
    recordAudit(ctx.db, ctx.clock, {
      actor,
      action: 'webhook_event.redeliver',
      target: event.id,
      details: { endpoints: targets },
    });
    return { eventId: event.id, deliveries: ids.map((id, i) => ({ id, endpointId: targets[i]! })) };
  });
}

export function redeliverEvent(
  ctx: AppContext,
  dev: DeveloperPrincipal,
  applicationId: string,
  eventId: string,
  input: { endpointId?: string } = {},
): RedeliveryResult {
  assertApplicationAccess(ctx.db, dev, applicationId);
  const event = createDeliveryStore(ctx.db).findEvent(eventId, {
    applicationId,
    environment: dev.environment,
  });
  if (!event) throw new NotFoundError('No such event.');
  return redeliver(ctx, `developer:${dev.developerId}`, event, input.endpointId);
}

export function redeliverAsOperator(ctx: AppContext, eventId: string, endpointId?: string): RedeliveryResult {
  const event = createDeliveryStore(ctx.db).findEvent(eventId);
  if (!event) throw new NotFoundError(`event ${eventId} not found`);
  return redeliver(ctx, 'cli', event, endpointId);
}

/** Delivered and failed events, with their history, are kept this long; pending ones until they finish. */
export const HISTORY_RETENTION_SECONDS = 90 * 86_400;

/** Removes old events and their history in small transactions, so delivery is never held up long. */
export function pruneWebhookHistory(ctx: AppContext, now: number): number {
  const store = createDeliveryStore(ctx.db);
  let removed = 0;
  for (;;) {
    const n = ctx.db.sql.transaction(() => store.pruneEvents(now - HISTORY_RETENTION_SECONDS, 500));
    removed += n;
    if (n < 500) return removed;
  }
}
