import { and, desc, eq, lt } from 'drizzle-orm';
import type { Db } from '../db/open.ts';
import { auditLog } from '../db/schema/audit.ts';
import { type Clock, unix } from '../platform/clock.ts';

/** Who did it: "cli" (an operator), "developer:<id>", "person:<id>" or "system". */
export type AuditActor = 'cli' | 'system' | `developer:${string}` | `person:${string}`;

export interface AuditInput {
  actor: AuditActor;
  /** Dotted verb, e.g. "application.create", "client_secret.rotate". */
  action: string;
  /** The id of what was changed. */
  target?: string;
  /** Facts worth keeping about the change. Never secrets: callers pass ids, names and flags only. */
  details?: Record<string, unknown>;
}

export interface AuditEntry {
  id: number;
  at: number;
  actor: string;
  action: string;
  target: string | null;
  details: Record<string, unknown>;
}

/**
 * Appends one row to the audit log. Synchronous, so it can run inside the transaction of the change it
 * records and commit (or roll back) with it.
 */
export function recordAudit(db: Db, clock: Clock, input: AuditInput): void {
  db.sql
    .prepare('INSERT INTO audit_log (at, actor, action, target, details) VALUES (?, ?, ?, ?, ?)')
    .run(unix(clock), input.actor, input.action, input.target ?? null, JSON.stringify(input.details ?? {}));
}

export interface AuditQuery {
  action?: string;
  target?: string;
  /** Only rows with an id below this one (paging backwards, newest first). */
  before?: number;
  limit?: number;
}

/** Newest first. */
export function listAudit(db: Db, query: AuditQuery = {}): AuditEntry[] {
  const where = and(
    query.action ? eq(auditLog.action, query.action) : undefined,
    query.target ? eq(auditLog.target, query.target) : undefined,
    query.before ? lt(auditLog.id, query.before) : undefined,
  );
  const rows = db.orm
    .select()
    .from(auditLog)
    .where(where)
    .orderBy(desc(auditLog.id))
    .limit(Math.min(Math.max(query.limit ?? 100, 1), 1000))
    .all();
  return rows.map((r) => ({ ...r, details: JSON.parse(r.details) as Record<string, unknown> }));
}
