import type { Db } from '../db/open.ts';

/** Sealed one-time results of portal forms, per session and slot (see results.ts). */

export function putResult(
  db: Db,
  row: { sessionIdHash: string; slot: string; sealed: string; expiresAt: number },
): void {
  db.sql
    .prepare(
      `INSERT INTO portal_results (session_id_hash, slot, sealed, expires_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (session_id_hash, slot) DO UPDATE SET sealed = excluded.sealed, expires_at = excluded.expires_at`,
    )
    .run(row.sessionIdHash, row.slot, row.sealed, row.expiresAt);
}

/**
 * Takes a result out: one conditional DELETE, so of two loads of the result page exactly one gets it,
 * and an expired one is never returned.
 */
export function takeResult(db: Db, sessionIdHash: string, slot: string, now: number): string | undefined {
  return db.sql
    .prepare<{ sealed: string }>(
      `DELETE FROM portal_results WHERE session_id_hash = ? AND slot = ? AND expires_at > ?
       RETURNING sealed`,
    )
    .get(sessionIdHash, slot, now)?.sealed;
}

export function pruneResults(db: Db, now: number): number {
  return db.sql.prepare('DELETE FROM portal_results WHERE expires_at <= ?').run(now).changes;
}
