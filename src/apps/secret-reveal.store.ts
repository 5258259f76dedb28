import type { Db } from '../db/open.ts';

/** Sealed production client secrets awaiting their one reveal (see production-secret.ts). */

export function insertSecretReveal(
  db: Db,
  row: { applicationId: string; sealedSecret: string; createdAt: number; expiresAt: number },
): void {
  db.sql
    .prepare(
      `INSERT INTO production_secret_reveals (application_id, sealed_secret, created_at, expires_at)
       VALUES (?, ?, ?, ?)
       ON CONFLICT (application_id) DO UPDATE SET sealed_secret = excluded.sealed_secret,
         created_at = excluded.created_at, expires_at = excluded.expires_at`,
    )
    .run(row.applicationId, row.sealedSecret, row.createdAt, row.expiresAt);
}

/** When the secret can still be revealed, its expiry; otherwise undefined. */
export function revealExpiry(db: Db, applicationId: string, now: number): number | undefined {
  return db.sql
    .prepare<{ expires_at: number }>(
      'SELECT expires_at FROM production_secret_reveals WHERE application_id = ? AND expires_at > ?',
    )
    .get(applicationId, now)?.expires_at;
}

/**
 * Takes the sealed secret out: one conditional DELETE, so of two concurrent reveals exactly one gets
 * it, and an expired one is never returned.
 */
export function takeSecretReveal(db: Db, applicationId: string, now: number): string | undefined {
  return db.sql
    .prepare<{ sealed_secret: string }>(
      `DELETE FROM production_secret_reveals WHERE application_id = ? AND expires_at > ?
       RETURNING sealed_secret`,
    )
    .get(applicationId, now)?.sealed_secret;
}

export function deleteSecretReveal(db: Db, applicationId: string): void {
  db.sql.prepare('DELETE FROM production_secret_reveals WHERE application_id = ?').run(applicationId);
}

export function pruneSecretReveals(db: Db, now: number): number {
  return db.sql.prepare('DELETE FROM production_secret_reveals WHERE expires_at <= ?').run(now).changes;
}
