import type { Db } from '../db/open.ts';
import type { SqlRow } from '../db/row.ts';
import type { webhookAttempts } from '../db/schema/webhooks.ts';
import type { Environment } from '../environment.ts';
import type { EventType } from './events.ts';

/** A delivery the dispatcher holds a lease on, with what it needs to make the attempt. */
export interface ClaimedDelivery {
  id: string;
  leaseToken: string;
  eventId: string;
  eventType: EventType;
  /** The exact body stored with the event; sent byte-for-byte on every attempt. */
  body: string;
  endpointId: string;
  url: string;
  environment: Environment;
  /** Attempts already recorded; this one is number `attempts + 1`. */
  attempts: number;
  /** Whose endpoint it is: its application's owning developer, or the application when none. */
  tenant: string;
}

export type AttemptStatus = 'delivered' | 'retrying' | 'failed';

export interface DeliveryAttempt {
  id: string;
  deliveryId: string;
  eventId: string;
  eventType: string;
  endpointId: string;
  attempt: number;
  status: AttemptStatus;
  responseStatus: number | null;
  error: string | null;
  durationMs: number;
  attemptedAt: number;
  nextAttemptAt: number | null;
}

export interface AttemptFilter {
  applicationId?: string;
  environment?: Environment;
  endpointId?: string;
  eventId?: string;
  eventType?: string;
  status?: AttemptStatus;
  /** Rows strictly older than this position (newest first). */
  before?: { attemptedAt: number; id: string };
  limit: number;
}

type AttemptRow = SqlRow<typeof webhookAttempts>;

const toAttempt = (r: AttemptRow): DeliveryAttempt => ({
  id: r.id,
  deliveryId: r.delivery_id,
  eventId: r.event_id,
  eventType: r.event_type,
  endpointId: r.endpoint_id,
  attempt: r.attempt,
  status: r.status,
  responseStatus: r.response_status,
  error: r.error,
  durationMs: r.duration_ms,
  attemptedAt: r.attempted_at,
  nextAttemptAt: r.next_attempt_at,
});

interface ClaimRow {
  id: string;
  event_id: string;
  type: EventType;
  body: string;
  endpoint_id: string;
  url: string;
  environment: Environment;
  attempts: number;
}

// Every query of a claim uses an index, so its cost grows with the number of endpoints and leases,
// not with the size of the backlog.
// Only pending rows ever hold a lease (recording an attempt clears it).
const LEASED_PER_ENDPOINT = `SELECT endpoint_id, COUNT(*) AS n FROM webhook_deliveries INDEXED BY webhook_deliveries_lease
  WHERE lease_expires_at > ? GROUP BY endpoint_id`;
const LEASED_OF_ENDPOINT = `SELECT COUNT(*) AS n FROM webhook_deliveries
  WHERE endpoint_id = ? AND status = 'pending' AND lease_expires_at > ?`;
const ENDPOINTS_WITH_DUE = `SELECT id, tenant, due FROM (
    SELECT e.id, COALESCE(a.owner_developer_id, a.id) AS tenant,
      (SELECT d.next_attempt_at FROM webhook_deliveries d
       WHERE d.endpoint_id = e.id AND d.status = 'pending'
       ORDER BY d.next_attempt_at LIMIT 1) AS due
    FROM webhook_endpoints e JOIN applications a ON a.id = e.application_id WHERE e.enabled = 1) AS t
  WHERE due <= ? ORDER BY due, id`;
const DUE_OF_ENDPOINT = `SELECT d.id, d.event_id, ev.type, ev.body, d.endpoint_id, e.url, e.environment, d.attempts
  FROM webhook_deliveries d
  JOIN webhook_events ev ON ev.id = d.event_id
  JOIN webhook_endpoints e ON e.id = d.endpoint_id
  WHERE d.endpoint_id = CAST(? AS TEXT) AND d.status = 'pending' AND d.next_attempt_at <= ?
    AND (d.lease_expires_at IS NULL OR d.lease_expires_at <= ?)
  ORDER BY d.next_attempt_at LIMIT ?`;
// PostgreSQL: the endpoint being claimed for by another instance is passed over, and so is a delivery
// row another transaction is changing (its attempt being recorded): no claimer ever waits.
const LOCK_ENDPOINT = `SELECT id FROM webhook_endpoints WHERE id = ? AND enabled = 1
  FOR NO KEY UPDATE SKIP LOCKED`;
const DUE_OF_ENDPOINT_LOCKING = `${DUE_OF_ENDPOINT} FOR UPDATE OF d SKIP LOCKED`;

export function createDeliveryStore(db: Db) {
  const sql = db.sql;
  const postgres = db.engine === 'postgres';

  /**
   * How many leases the endpoint holds, or undefined when another claimer holds the endpoint.
   * SQLite: BEGIN IMMEDIATE serialises claimers, so one read of every endpoint's leases does.
   * PostgreSQL: claimers run side by side; each holds the endpoint's row lock until it commits and only
   * then counts, under READ COMMITTED, which shows every lease committed before it: so the endpoint's
   * limit holds across instances.
   */
  function leaseCounter(now: number): (endpointId: string) => number | undefined {
    if (postgres) {
      sql.exec('SET TRANSACTION ISOLATION LEVEL READ COMMITTED');
      return (endpointId) =>
        sql.prepare(LOCK_ENDPOINT).get(endpointId)
          ? sql.prepare<{ n: number }>(LEASED_OF_ENDPOINT).get(endpointId, now)!.n
          : undefined;
    }
    const leased = new Map(
      sql
        .prepare<{ endpoint_id: string; n: number }>(LEASED_PER_ENDPOINT)
        .all(now)
        .map((r) => [r.endpoint_id, r.n]),
    );
    return (endpointId) => leased.get(endpointId) ?? 0;
  }

  return {
    /**
     * Leases up to `limit` due deliveries, so two processes never lease the same row (see
     * leaseCounter); a lease that is never released (the process died) expires and the row is due again.
     */
    claimDue(opts: {
      now: number;
      leaseSeconds: number;
      perEndpoint: number;
      limit: number;
      /** The most deliveries of one tenant in flight, `inFlight` (by tenant) counted. */
      perTenant?: number;
      inFlight?: ReadonlyMap<string, number>;
    }): ClaimedDelivery[] {
      if (opts.limit <= 0) return [];
      return sql.transaction(() => {
        const leasesOf = leaseCounter(opts.now);
        const endpoints = sql.prepare<{ id: string; tenant: string }>(ENDPOINTS_WITH_DUE).all(opts.now);
        const due = sql.prepare<ClaimRow>(postgres ? DUE_OF_ENDPOINT_LOCKING : DUE_OF_ENDPOINT);
        const claimed: ClaimedDelivery[] = [];
        const busy = new Map(opts.inFlight);
        // Oldest backlog first; each endpoint and each tenant gets only its free slots, so none can
        // take them all.
        for (const e of endpoints) {
          const leased = leasesOf(e.id);
          if (leased === undefined) continue;
          const free = Math.min(
            opts.perEndpoint - leased,
            opts.limit - claimed.length,
            (opts.perTenant ?? opts.limit) - (busy.get(e.tenant) ?? 0),
          );
          if (free <= 0) continue;
          for (const row of due.all(e.id, opts.now, opts.now, free)) {
            const token = crypto.randomUUID();
            sql
              .prepare(
                'UPDATE webhook_deliveries SET lease_expires_at = ?, lease_token = ?, updated_at = ? WHERE id = ?',
              )
              .run(opts.now + opts.leaseSeconds, token, opts.now, row.id);
            claimed.push({
              id: row.id,
              leaseToken: token,
              eventId: row.event_id,
              eventType: row.type,
              body: row.body,
              endpointId: row.endpoint_id,
              url: row.url,
              environment: row.environment,
              attempts: row.attempts,
              tenant: e.tenant,
            });
            busy.set(e.tenant, (busy.get(e.tenant) ?? 0) + 1);
          }
          if (claimed.length >= opts.limit) break;
        }
        return claimed;
      });
    },

    /**
     * Records one attempt and moves the delivery on: delivered, pending again at `nextAttemptAt`, or
     * failed. The history row is written even if the lease was lost meanwhile (the attempt did
     * happen); the delivery itself is only changed by the lease holder.
     */
    recordAttempt(
      claim: ClaimedDelivery,
      a: Omit<DeliveryAttempt, 'deliveryId' | 'eventId' | 'eventType' | 'endpointId'>,
    ): boolean {
      return sql.transaction(() => {
        sql
          .prepare(
            `INSERT INTO webhook_attempts (id, delivery_id, event_id, event_type, endpoint_id, attempt, status,
               response_status, error, duration_ms, attempted_at, next_attempt_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          )
          .run(
            a.id,
            claim.id,
            claim.eventId,
            claim.eventType,
            claim.endpointId,
            a.attempt,
            a.status,
            a.responseStatus,
            a.error,
            a.durationMs,
            a.attemptedAt,
            a.nextAttemptAt,
          );
        const status = a.status === 'retrying' ? 'pending' : a.status;
        return (
          sql
            .prepare(
              `UPDATE webhook_deliveries
               SET status = ?, attempts = ?, next_attempt_at = COALESCE(?, next_attempt_at),
                   lease_expires_at = NULL, lease_token = NULL, updated_at = ?
               WHERE id = ? AND lease_token = ?`,
            )
            .run(status, a.attempt, a.nextAttemptAt, a.attemptedAt, claim.id, claim.leaseToken).changes > 0
        );
      });
    },

    /** Newest first. */
    listAttempts(f: AttemptFilter): DeliveryAttempt[] {
      const where: string[] = [];
      const params: unknown[] = [];
      if (f.applicationId !== undefined) {
        where.push('e.application_id = ?');
        params.push(f.applicationId);
      }
      if (f.environment !== undefined) {
        where.push('e.environment = ?');
        params.push(f.environment);
      }
      if (f.endpointId !== undefined) {
        where.push('a.endpoint_id = ?');
        params.push(f.endpointId);
      }
      if (f.eventId !== undefined) {
        where.push('a.event_id = ?');
        params.push(f.eventId);
      }
      if (f.eventType !== undefined) {
        where.push('a.event_type = ?');
        params.push(f.eventType);
      }
      if (f.status !== undefined) {
        where.push('a.status = ?');
        params.push(f.status);
      }
      if (f.before) {
        where.push('(a.attempted_at < ? OR (a.attempted_at = ? AND a.id < ?))');
        params.push(f.before.attemptedAt, f.before.attemptedAt, f.before.id);
      }
      params.push(f.limit);
      return sql
        .prepare<AttemptRow>(
          `SELECT a.* FROM webhook_attempts a JOIN webhook_endpoints e ON e.id = a.endpoint_id
           ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
           ORDER BY a.attempted_at DESC, a.id DESC LIMIT ?`,
        )
        .all(...params)
        .map(toAttempt);
    },

    /**
     * Deletes up to `batch` events created before `cutoff` that have nothing left to deliver; their
     * deliveries and attempts go with them (foreign keys cascade).
     */
    pruneEvents(cutoff: number, batch: number): number {
      return sql
        .prepare(
          `DELETE FROM webhook_events WHERE id IN (
             SELECT ev.id FROM webhook_events ev
             WHERE ev.created_at < ?
               AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = ev.id
                 AND (d.status = 'pending' OR d.updated_at >= ?))
             LIMIT ?)`,
        )
        .run(cutoff, cutoff, batch).changes;
    },

    pendingCount(): number {
      return sql
        .prepare<{ n: number }>("SELECT COUNT(*) AS n FROM webhook_deliveries WHERE status = 'pending'")
        .get()!.n;
    },

    /** The event, if it belongs to this application environment. */
    findEvent(
      eventId: string,
      scope?: { applicationId: string; environment: Environment },
    ): { id: string; type: EventType; applicationId: string; environment: Environment } | undefined {
      const row = sql
        .prepare<{ id: string; type: EventType; application_id: string; environment: Environment }>(
          'SELECT id, type, application_id, environment FROM webhook_events WHERE id = ?',
        )
        .get(eventId);
      if (!row) return undefined;
      if (scope && (row.application_id !== scope.applicationId || row.environment !== scope.environment))
        return undefined;
      return { id: row.id, type: row.type, applicationId: row.application_id, environment: row.environment };
    },

    /** Endpoints that have had a delivery of this event. */
    endpointsOfEvent(eventId: string): string[] {
      return sql
        .prepare<{ endpoint_id: string }>(
          'SELECT DISTINCT endpoint_id FROM webhook_deliveries WHERE event_id = ? ORDER BY endpoint_id',
        )
        .all(eventId)
        .map((r) => r.endpoint_id);
    },
  };
}
