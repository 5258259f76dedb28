import type { Db } from '../db/open.ts';
import type { SqlRow } from '../db/row.ts';
import type { authorizationRequests } from '../db/schema/oauth.ts';
import type { Environment } from '../environment.ts';

/** Why a face check that ran did not pass; such a failure may be retried up to `[face] attempts`. */
export type FaceFailure = NonNullable<AuthorizationRequestRow['last_face_failure']>;

export type RequestStatus = 'pending' | 'authenticated' | 'face_passed' | 'completed' | 'denied' | 'failed';

/** Statuses from which a request may still end one way or the other. */
export const OPEN_STATUSES: readonly RequestStatus[] = ['pending', 'authenticated', 'face_passed'];

export type AuthorizationRequestRow = SqlRow<typeof authorizationRequests>;

/** The request joined with what the identity experience shows about its application. */
export interface JoinedRequestRow extends AuthorizationRequestRow {
  application_id: string;
  application_name: string;
  application_type: 'confidential' | 'public';
  environment: Environment;
  client_id: string;
}

export type NewRequest = Pick<
  AuthorizationRequestRow,
  | 'id'
  | 'environment_id'
  | 'redirect_uri'
  | 'scopes'
  | 'state'
  | 'nonce'
  | 'code_challenge'
  | 'purpose'
  | 'display'
  | 'prompt'
  | 'max_age'
  | 'login_hint'
  | 'ui_locales'
  | 'required_acr'
  | 'claims'
  | 'id_token_hint_sub'
  | 'created_at'
  | 'expires_at'
>;

const INSERT = `INSERT INTO authorization_requests (id, environment_id, redirect_uri, scopes, state, nonce,
    code_challenge, purpose, display, prompt, max_age, login_hint, ui_locales, required_acr, claims,
    id_token_hint_sub, amr, status, created_at, expires_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '[]', 'pending', ?, ?)`;

// Three primary-key lookups rather than a join: cheaper in SQLite without table statistics.
const REQUEST = 'SELECT * FROM authorization_requests WHERE id = ?';
const ENVIRONMENT =
  'SELECT application_id, environment, client_id FROM application_environments WHERE id = ?';
const APPLICATION =
  'SELECT name AS application_name, type AS application_type FROM applications WHERE id = ?';

const OPEN = `status IN ('pending', 'authenticated', 'face_passed')`;

export function createAuthorizationRequestStore(db: Db) {
  return {
    insert(r: NewRequest): void {
      db.sql
        .prepare(INSERT)
        .run(
          r.id,
          r.environment_id,
          r.redirect_uri,
          r.scopes,
          r.state,
          r.nonce,
          r.code_challenge,
          r.purpose,
          r.display,
          r.prompt,
          r.max_age,
          r.login_hint,
          r.ui_locales,
          r.required_acr,
          r.claims,
          r.id_token_hint_sub,
          r.created_at,
          r.expires_at,
        );
    },

    joined(id: string): JoinedRequestRow | undefined {
      const r = db.sql.prepare<AuthorizationRequestRow>(REQUEST).get(id);
      if (!r) return undefined;
      const e = db.sql
        .prepare<Pick<JoinedRequestRow, 'application_id' | 'environment' | 'client_id'>>(ENVIRONMENT)
        .get(r.environment_id);
      if (!e) return undefined;
      const a = db.sql
        .prepare<Pick<JoinedRequestRow, 'application_name' | 'application_type'>>(APPLICATION)
        .get(e.application_id);
      return a ? { ...r, ...e, ...a } : undefined;
    },

    /** Conditional: only an open, unexpired request completes, and only once. */
    complete(
      id: string,
      now: number,
      g: {
        personId: string;
        authTime: number;
        acr: string;
        amr: string;
        liveness: boolean;
        faceMatch: boolean;
      },
    ): boolean {
      return (
        db.sql
          .prepare(
            `UPDATE authorization_requests SET status = 'completed', person_id = ?, auth_time = ?, acr = ?,
               amr = ?, liveness_verified = ?, face_match_verified = ?
             WHERE id = ? AND ${OPEN} AND expires_at > ?`,
          )
          .run(g.personId, g.authTime, g.acr, g.amr, g.liveness ? 1 : 0, g.faceMatch ? 1 : 0, id, now)
          .changes === 1
      );
    },

    /** Ends, as failed, every open request to an application the developer owns; returns how many. */
    endOpenOfOwner(developerId: string): number {
      return db.sql
        .prepare(
          `UPDATE authorization_requests SET status = 'failed' WHERE ${OPEN} AND environment_id IN (
             SELECT e.id FROM application_environments e JOIN applications a ON a.id = e.application_id
             WHERE a.owner_developer_id = ?)`,
        )
        .run(developerId).changes;
    },

    /** Conditional: an open request ends once; an expired one may still be ended with an error. */
    end(id: string, status: 'denied' | 'failed'): boolean {
      return (
        db.sql
          .prepare(`UPDATE authorization_requests SET status = ? WHERE id = ? AND ${OPEN}`)
          .run(status, id).changes === 1
      );
    },

    /**
     * Counts a face check as it starts, in one conditional UPDATE, while fewer than `attempts` have
     * been counted: concurrent posts cannot reach the provider more often than that. A check that
     * passes moves the request on, so `face_failures` counts the checks that failed or are running.
     * With a `challenge`, only the one the step showed last, issued after `issuedAfter`, starts a
     * check, and it is used up.
     */
    startFaceCheck(
      id: string,
      now: number,
      attempts: number,
      challenge?: { value: string; issuedAfter: number },
    ): boolean {
      const answers = challenge ? 'AND face_challenge = ? AND face_challenge_issued_at > ?' : '';
      const args = challenge ? [challenge.value, challenge.issuedAfter] : [];
      return (
        db.sql
          .prepare(
            `UPDATE authorization_requests SET face_failures = face_failures + 1, face_check_started_at = ?,
               face_challenge = NULL
             WHERE id = ? AND status = 'authenticated' AND expires_at > ? AND face_failures < ? ${answers}`,
          )
          .run(now, id, now, attempts, ...args).changes === 1
      );
    },

    /**
     * The face step's challenge: the unused one issued after `reuseAfter`, or else `fresh`, which
     * replaces it. Undefined once the request is past the step.
     */
    faceChallenge(
      id: string,
      now: number,
      fresh: string,
      reuseAfter: number,
    ): { value: string; issuedAt: number } | undefined {
      const replace = 'face_challenge IS NULL OR face_challenge_issued_at <= ?';
      const row = db.sql
        .prepare<{ face_challenge: string; face_challenge_issued_at: number }>(
          `UPDATE authorization_requests
           SET face_challenge = CASE WHEN ${replace} THEN ? ELSE face_challenge END,
               face_challenge_issued_at = CASE WHEN ${replace} THEN ? ELSE face_challenge_issued_at END
           WHERE id = ? AND status = 'authenticated' AND expires_at > ?
           RETURNING face_challenge, face_challenge_issued_at`,
        )
        .get(reuseAfter, fresh, reuseAfter, now, id, now);
      return row && { value: row.face_challenge, issuedAt: Number(row.face_challenge_issued_at) };
    },

    /**
     * Whether the request waits at the face step with every attempt counted and the last one started
     * at `startedBy` or before: a check that left no answer by then was cut off, since a running one
     * ends at the provider's timeout.
     */
    faceCheckCutOff(id: string, now: number, attempts: number, startedBy: number): boolean {
      return (
        db.sql
          .prepare(
            `SELECT 1 AS cut FROM authorization_requests
             WHERE id = ? AND status = 'authenticated' AND expires_at > ? AND face_failures >= ?
               AND face_check_started_at <= ?`,
          )
          .get(id, now, attempts, startedBy) !== undefined
      );
    },

    /** Why the last face check failed; the count of failed checks, or undefined if the request is not there. */
    recordFaceFailure(id: string, now: number, reason: FaceFailure): number | undefined {
      return db.sql
        .prepare<{ face_failures: number }>(
          `UPDATE authorization_requests SET last_face_failure = ?
           WHERE id = ? AND status = 'authenticated' AND expires_at > ?
           RETURNING face_failures`,
        )
        .get(reason, id, now)?.face_failures;
    },

    /** Binds the request to the first browser session that opens it; a later session changes nothing. */
    claimForSession(id: string, sessionIdHash: string): void {
      db.sql
        .prepare(
          'UPDATE authorization_requests SET session_id_hash = ? WHERE id = ? AND session_id_hash IS NULL',
        )
        .run(sessionIdHash, id);
    },

    /** Progress of an open request inside the identity experience. */
    update(
      id: string,
      now: number,
      patch: {
        status?: 'pending' | 'authenticated' | 'face_passed';
        sessionIdHash?: string | null;
        personId?: string | null;
        authTime?: number | null;
        amr?: string[];
        acr?: string | null;
        livenessVerified?: boolean | null;
        faceMatchVerified?: boolean | null;
      },
    ): boolean {
      const sets: string[] = [];
      const values: unknown[] = [];
      const put = (column: string, v: unknown) => {
        sets.push(`${column} = ?`);
        values.push(v);
      };
      const bool = (v: boolean | null) => (v === null ? null : v ? 1 : 0);
      if (patch.status !== undefined) put('status', patch.status);
      if (patch.sessionIdHash !== undefined) put('session_id_hash', patch.sessionIdHash);
      if (patch.personId !== undefined) put('person_id', patch.personId);
      if (patch.authTime !== undefined) put('auth_time', patch.authTime);
      if (patch.amr !== undefined) put('amr', JSON.stringify(patch.amr));
      if (patch.acr !== undefined) put('acr', patch.acr);
      if (patch.livenessVerified !== undefined) put('liveness_verified', bool(patch.livenessVerified));
      if (patch.faceMatchVerified !== undefined) put('face_match_verified', bool(patch.faceMatchVerified));
      if (sets.length === 0) return false;
      return (
        db.sql
          .prepare(
            `UPDATE authorization_requests SET ${sets.join(', ')} WHERE id = ? AND ${OPEN} AND expires_at > ?`,
          )
          .run(...values, id, now).changes === 1
      );
    },

    deleteExpired(now: number): number {
      return db.sql.prepare('DELETE FROM authorization_requests WHERE expires_at <= ?').run(now).changes;
    },
  };
}
