import type { Db } from '../db/open.ts';
import type { SqlRow } from '../db/row.ts';
import type { consents } from '../db/schema/consents.ts';
import type { ConsentEndReason } from '../webhooks/events.ts';

// The end reasons are the webhook's (consent.revoked's `reason`), defined once there.
export type { ConsentEndReason };
export type ConsentStatus = (typeof consents.$inferSelect)['status'];

export interface Consent {
  id: string;
  applicationId: string;
  environmentId: string;
  personId: string;
  /** The identity session that granted a sandbox persona's consent (`holder.ts`); null otherwise. */
  sessionIdHash: string | null;
  /** Sorted, without duplicates. */
  scopes: string[];
  purpose: string;
  status: ConsentStatus;
  grantedAt: number;
  expiresAt: number;
  lastUsedAt: number | null;
  endedAt: number | null;
  endReason: ConsentEndReason | null;
}

/** A `consents` row as selected with `*`; the lifecycle store's joined rows extend it. */
export type ConsentRow = SqlRow<typeof consents>;

export const toConsent = (r: ConsentRow): Consent => ({
  id: r.id,
  applicationId: r.application_id,
  environmentId: r.environment_id,
  personId: r.person_id,
  sessionIdHash: r.session_id_hash,
  scopes: JSON.parse(r.scopes) as string[],
  purpose: r.purpose,
  status: r.status,
  grantedAt: r.granted_at,
  expiresAt: r.expires_at,
  lastUsedAt: r.last_used_at,
  endedAt: r.ended_at,
  endReason: r.end_reason,
});

/** The canonical text of a scope set: sorted and de-duplicated, so equal sets compare equal as text. */
export const canonicalScopes = (scopes: readonly string[]): string =>
  JSON.stringify([...new Set(scopes)].sort());

/**
 * The one rule for a consent in force: still active and not past its own expiry. `alias` names the
 * consents table in the query; the fragment binds the current time as one parameter.
 */
export const consentInForce = (alias: string) => `${alias}.status = 'active' AND ${alias}.expires_at > ?`;

// Both by primary key, in this order (CROSS JOIN, and CAST: see oauth/client.store.ts).
const IN_FORCE_WITH_PERSON = `SELECT 1 FROM consents c CROSS JOIN persons p
  WHERE c.id = CAST(? AS TEXT) AND p.id = c.person_id AND ${consentInForce('c')} AND p.status = 'active'`;
const IN_FORCE_FOR = `SELECT 1 FROM consents c
  WHERE c.id = ? AND c.person_id = ? AND c.environment_id = ? AND ${consentInForce('c')}
    AND (SELECT status FROM persons p WHERE p.id = c.person_id AND p.environment = ?) = 'active'`;

/** For the token endpoint (a module function: no allocation per exchange): in force, person active. */
export function isConsentInForce(db: Db, consentId: string, now: number): boolean {
  return db.sql.prepare(IN_FORCE_WITH_PERSON).get(consentId, now) !== undefined;
}

/**
 * In force, granted by this person in this application environment, and the person is active and of
 * the environment (sandbox personas never reach production applications, nor production persons the
 * sandbox).
 */
export function isConsentInForceFor(
  db: Db,
  c: { consentId: string; personId: string; environmentId: string; environment: string },
  now: number,
): boolean {
  return (
    db.sql.prepare(IN_FORCE_FOR).get(c.consentId, c.personId, c.environmentId, now, c.environment) !==
    undefined
  );
}

// Written at most once per second per consent, so a busy token does not turn every read into a write.
const MARK_USED = `UPDATE consents SET last_used_at = ?
  WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)`;

/** Records a use of the consent (by one of its access tokens) at `now`. */
export function markConsentUsedAt(db: Db, consentId: string, now: number): void {
  db.sql.prepare(MARK_USED).run(now, consentId, now);
}

/** Whether the holder has a consent (in any state) to the application environment: it signed in there. */
export function holdsConsentTo(db: Db, holder: ConsentHolder, environmentId: string): boolean {
  return (
    db.sql
      .prepare(
        'SELECT 1 AS x FROM consents WHERE environment_id = ? AND person_id = ? AND session_id_hash IS NOT DISTINCT FROM ? LIMIT 1',
      )
      .get(environmentId, holder.personId, holder.sessionIdHash) !== undefined
  );
}

/** Who holds a consent: the person, and for a sandbox persona the identity session too (`holder.ts`). */
export interface ConsentHolder {
  personId: string;
  sessionIdHash: string | null;
}

export interface ConsentKey extends ConsentHolder {
  environmentId: string;
  purpose: string;
  scopes: readonly string[];
}

/** Consent records as granting needs them (`grant.ts`); listing and ending them is in `lifecycle.store.ts`. */
/** The newest consent in force with the same binding (a ConsentKey's five values, then `now`). */
const SAME_CONSENT = `environment_id = ? AND person_id = ? AND session_id_hash IS NOT DISTINCT FROM ? AND purpose = ? AND scopes = ?
  AND ${consentInForce('consents')} ORDER BY granted_at DESC LIMIT 1`;

export function createConsentStore(db: Db) {
  return {
    insert(c: Consent): void {
      db.sql
        .prepare(
          `INSERT INTO consents (id, application_id, environment_id, person_id, session_id_hash, scopes, purpose,
             status, granted_at, expires_at, last_used_at, ended_at, end_reason)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          c.id,
          c.applicationId,
          c.environmentId,
          c.personId,
          c.sessionIdHash,
          canonicalScopes(c.scopes),
          c.purpose,
          c.status,
          c.grantedAt,
          c.expiresAt,
          c.lastUsedAt,
          c.endedAt,
          c.endReason,
        );
    },

    get(id: string): Consent | undefined {
      const row = db.sql.prepare<ConsentRow>('SELECT * FROM consents WHERE id = ?').get(id);
      return row && toConsent(row);
    },

    /**
     * The newest active, unexpired consent with exactly this environment, holder, purpose and scope
     * set. A consent for more or fewer scopes, another purpose or (for a persona) granted in another
     * session is not the same consent.
     */
    findActive(key: ConsentKey, now: number): Consent | undefined {
      const row = db.sql
        .prepare<ConsentRow>(`SELECT * FROM consents WHERE ${SAME_CONSENT}`)
        .get(
          key.environmentId,
          key.personId,
          key.sessionIdHash,
          key.purpose,
          canonicalScopes(key.scopes),
          now,
        );
      return row && toConsent(row);
    },

    /**
     * Renews the newest consent `findActive` would find: new grant time and expiry, same id. Run in
     * the transaction that would otherwise insert, so of two concurrent grants the second renews the
     * first's row (writes are serialized: every transaction begins IMMEDIATE).
     */
    renewActive(key: ConsentKey, now: number, expiresAt: number): Consent | undefined {
      const row = db.sql
        .prepare<ConsentRow>(
          `UPDATE consents SET granted_at = ?, expires_at = ?, last_used_at = ?
           WHERE id = (SELECT id FROM consents WHERE ${SAME_CONSENT}) RETURNING *`,
        )
        .get(
          now,
          expiresAt,
          now,
          key.environmentId,
          key.personId,
          key.sessionIdHash,
          key.purpose,
          canonicalScopes(key.scopes),
          now,
        );
      return row && toConsent(row);
    },

    markUsed(id: string, now: number): void {
      db.sql.prepare('UPDATE consents SET last_used_at = ? WHERE id = ?').run(now, id);
    },
  };
}
