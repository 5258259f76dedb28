import type { Db } from '../db/open.ts';
import type { SqlRow } from '../db/row.ts';
import type { webhookEndpoints, webhookSecrets } from '../db/schema/webhooks.ts';
import type { Environment } from '../environment.ts';
import type { EventType } from './events.ts';

export interface WebhookEndpoint {
  id: string;
  applicationId: string;
  environment: Environment;
  url: string;
  events: EventType[];
  description: string;
  enabled: boolean;
  createdAt: number;
  updatedAt: number;
}

type EndpointRow = SqlRow<typeof webhookEndpoints>;

export type SecretRow = SqlRow<typeof webhookSecrets>;

const toEndpoint = (r: EndpointRow): WebhookEndpoint => ({
  id: r.id,
  applicationId: r.application_id,
  environment: r.environment,
  url: r.url,
  events: JSON.parse(r.events) as EventType[],
  description: r.description,
  enabled: r.enabled === 1,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** Webhook endpoints and their (sealed) signing secrets. */
export function createEndpointStore(db: Db) {
  const sql = db.sql;
  return {
    insert(e: WebhookEndpoint): void {
      sql
        .prepare(
          `INSERT INTO webhook_endpoints (id, application_id, environment, url, events, description, enabled, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          e.id,
          e.applicationId,
          e.environment,
          e.url,
          JSON.stringify(e.events),
          e.description,
          e.enabled ? 1 : 0,
          e.createdAt,
          e.updatedAt,
        );
    },

    find(id: string): WebhookEndpoint | undefined {
      const row = sql.prepare<EndpointRow>('SELECT * FROM webhook_endpoints WHERE id = ?').get(id);
      return row && toEndpoint(row);
    },

    /** The endpoint only if it belongs to this application environment. */
    findIn(applicationId: string, environment: Environment, id: string): WebhookEndpoint | undefined {
      const row = sql
        .prepare<EndpointRow>(
          'SELECT * FROM webhook_endpoints WHERE id = ? AND application_id = ? AND environment = ?',
        )
        .get(id, applicationId, environment);
      return row && toEndpoint(row);
    },

    list(applicationId: string, environment: Environment): WebhookEndpoint[] {
      return sql
        .prepare<EndpointRow>(
          'SELECT * FROM webhook_endpoints WHERE application_id = ? AND environment = ? ORDER BY created_at, id',
        )
        .all(applicationId, environment)
        .map(toEndpoint);
    },

    count(applicationId: string, environment: Environment): number {
      return sql
        .prepare<{ n: number }>(
          'SELECT COUNT(*) AS n FROM webhook_endpoints WHERE application_id = ? AND environment = ?',
        )
        .get(applicationId, environment)!.n;
    },

    update(e: WebhookEndpoint): void {
      sql
        .prepare(
          'UPDATE webhook_endpoints SET url = ?, events = ?, description = ?, enabled = ?, updated_at = ? WHERE id = ?',
        )
        .run(e.url, JSON.stringify(e.events), e.description, e.enabled ? 1 : 0, e.updatedAt, e.id);
    },

    /** Deliveries and history of the endpoint go with it (foreign keys cascade). */
    delete(id: string): boolean {
      return sql.prepare('DELETE FROM webhook_endpoints WHERE id = ?').run(id).changes > 0;
    },

    /** Every endpoint of the applications a developer owns, as `delete` does one. */
    deleteOwnedBy(developerId: string): number {
      return sql
        .prepare(
          'DELETE FROM webhook_endpoints WHERE application_id IN (SELECT id FROM applications WHERE owner_developer_id = ?)',
        )
        .run(developerId).changes;
    },

    insertSecret(row: SecretRow): void {
      sql
        .prepare(
          'INSERT INTO webhook_secrets (id, endpoint_id, ciphertext, created_at, expires_at) VALUES (?, ?, ?, ?, ?)',
        )
        .run(row.id, row.endpoint_id, row.ciphertext, row.created_at, row.expires_at);
    },

    /** The (at most two) secrets that still sign at `now`, newest first. */
    validSecrets(endpointId: string, now: number): SecretRow[] {
      return sql
        .prepare<SecretRow>(
          `SELECT * FROM webhook_secrets WHERE endpoint_id = ? AND (expires_at IS NULL OR expires_at > ?)
           ORDER BY created_at DESC, id LIMIT 2`,
        )
        .all(endpointId, now);
    },

    /** The current secret (the one without an end) ends at `at`, every other still valid at `now`. */
    retireSecrets(endpointId: string, now: number, at: number): void {
      sql
        .prepare(
          // Typed: PostgreSQL reads a bare parameter in a CASE as text.
          `UPDATE webhook_secrets SET expires_at = CASE WHEN expires_at IS NULL THEN CAST(? AS BIGINT) ELSE CAST(? AS BIGINT) END
           WHERE endpoint_id = ? AND (expires_at IS NULL OR expires_at > ?)`,
        )
        .run(at, now, endpointId, now);
    },

    /** Expired secrets are destroyed rather than kept sealed forever. */
    deleteExpiredSecrets(now: number): number {
      return sql
        .prepare('DELETE FROM webhook_secrets WHERE expires_at IS NOT NULL AND expires_at <= ?')
        .run(now).changes;
    },
  };
}
