import type { Db } from '../db/open.ts';
import type { Environment } from '../environment.ts';
import {
  type Consent,
  type ConsentEndReason,
  type ConsentHolder,
  type ConsentRow,
  consentInForce,
  toConsent,
} from './consent.store.ts';

/** A consent with what its `consent.revoked` event and the operator's listing need. */
export interface ConsentRecord extends Consent {
  applicationName: string;
  environment: Environment;
}

/** A persona's consent as the application's developer sees it. */
export type SandboxConsent = ConsentRecord & { personName: string };

interface Row extends ConsentRow {
  application_name: string;
  environment: Environment;
}

const toRecord = (r: Row): ConsentRecord => ({
  ...toConsent(r),
  applicationName: r.application_name,
  environment: r.environment,
});

const COLUMNS = `c.id, c.application_id, a.name AS application_name, c.environment_id, e.environment,
    c.person_id, c.session_id_hash, c.scopes, c.purpose, c.status, c.granted_at, c.expires_at, c.last_used_at,
    c.ended_at, c.end_reason`;
const FROM = `FROM consents c
  JOIN application_environments e ON e.id = c.environment_id
  JOIN applications a ON a.id = c.application_id`;
const SELECT = `SELECT ${COLUMNS} ${FROM}`;

/** The lifecycle half of the consent aggregate: listing and ending consents (grant is in `grant.ts`). */
export function createConsentLifecycleStore(db: Db) {
  const all = (where: string, ...params: unknown[]) =>
    db.sql
      .prepare<Row>(`${SELECT} WHERE ${where} ORDER BY c.granted_at DESC, c.id`)
      .all(...params)
      .map(toRecord);
  return {
    get(id: string): ConsentRecord | undefined {
      const row = db.sql.prepare<Row>(`${SELECT} WHERE c.id = CAST(? AS TEXT)`).get(id);
      return row && toRecord(row);
    },

    list(filter: { applicationId?: string; personId?: string } = {}): ConsentRecord[] {
      return all(
        '(CAST(? AS TEXT) IS NULL OR c.application_id = ?) AND (CAST(? AS TEXT) IS NULL OR c.person_id = ?)',
        filter.applicationId ?? null,
        filter.applicationId ?? null,
        filter.personId ?? null,
        filter.personId ?? null,
      );
    },

    /** Consents still in force (active and not past their expiry) of a holder. */
    activeForHolder(h: ConsentHolder, now: number): ConsentRecord[] {
      return all(
        `c.person_id = ? AND c.session_id_hash IS NOT DISTINCT FROM ? AND ${consentInForce('c')}`,
        h.personId,
        h.sessionIdHash,
        now,
      );
    },

    activeForHolderAndApplication(h: ConsentHolder, applicationId: string): ConsentRecord[] {
      return all(
        "c.person_id = ? AND c.session_id_hash IS NOT DISTINCT FROM ? AND c.application_id = ? AND c.status = 'active'",
        h.personId,
        h.sessionIdHash,
        applicationId,
      );
    },

    /** The sandbox consents in force of an application, with the persona's name, for its developer. */
    activeSandboxForApplication(applicationId: string, now: number): SandboxConsent[] {
      return db.sql
        .prepare<Row & { person_name: string | null }>(
          `SELECT ${COLUMNS}, p.name AS person_name ${FROM} JOIN persons p ON p.id = c.person_id
           WHERE c.application_id = ? AND e.environment = 'sandbox' AND ${consentInForce('c')}
           ORDER BY c.granted_at DESC, c.id`,
        )
        .all(applicationId, now)
        .map((r) => ({ ...toRecord(r), personName: r.person_name ?? r.person_id }));
    },

    /** Every consent of a person still marked active, expired or not. */
    allActiveForPerson(personId: string): ConsentRecord[] {
      return all("c.person_id = ? AND c.status = 'active'", personId);
    },

    /** Every active consent given to an application the developer owns. */
    allActiveForOwner(developerId: string): ConsentRecord[] {
      return all(
        "c.status = 'active' AND c.application_id IN (SELECT id FROM applications WHERE owner_developer_id = ?)",
        developerId,
      );
    },

    /** Active consents whose `[consent] max_age` has run out, oldest first. */
    due(now: number, limit: number): ConsentRecord[] {
      return db.sql
        .prepare<Row>(
          `${SELECT} WHERE c.status = 'active' AND c.expires_at <= ? ORDER BY c.expires_at, c.id LIMIT ?`,
        )
        .all(now, limit)
        .map(toRecord);
    },

    /**
     * Ends a consent if it is still active; false if it had already ended (a concurrent revocation won,
     * and its event is the one that counts).
     */
    end(id: string, status: 'revoked' | 'expired', reason: ConsentEndReason, now: number): boolean {
      return (
        db.sql
          .prepare(
            `UPDATE consents SET status = ?, end_reason = ?, ended_at = ? WHERE id = ? AND status = 'active'`,
          )
          .run(status, reason, now, id).changes === 1
      );
    },
  };
}
