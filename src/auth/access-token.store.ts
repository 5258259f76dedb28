import { consentInForce } from '../consent/consent.store.ts';
import type { Db } from '../db/open.ts';
import type { Environment } from '../environment.ts';

/** Module functions, not a store object: the token endpoint calls them on every exchange. */

export interface NewAccessToken {
  id: string;
  token_hash: string;
  environment_id: string;
  consent_id: string;
  person_id: string;
  scopes: string;
  acr: string;
  liveness_verified: number;
  face_match_verified: number;
  claims: string | null;
  created_at: number;
  expires_at: number;
}

const INSERT = `INSERT INTO access_tokens (id, token_hash, environment_id, consent_id, person_id,
    scopes, acr, liveness_verified, face_match_verified, claims, created_at, expires_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;
const REVOKE_FROM_CODE = `UPDATE access_tokens SET revoked_at = ?
  WHERE id = (SELECT token_id FROM authorization_codes WHERE id = ?) AND revoked_at IS NULL`;
// Only a live token: revoking an expired or already revoked one changes nothing and tells nobody.
const REVOKE_LIVE = `UPDATE access_tokens SET revoked_at = ?
  WHERE id = ? AND revoked_at IS NULL AND expires_at > ?`;
const REVOKE_FOR_CONSENT =
  'UPDATE access_tokens SET revoked_at = ? WHERE consent_id = ? AND revoked_at IS NULL';

/** Whose a token is: what revoking it at a client's request needs to know. */
export interface AccessTokenOwnerRow {
  token_hash: string;
  environment_id: string;
  consent_id: string;
  person_id: string;
}

const OWNER = 'SELECT token_hash, environment_id, consent_id, person_id FROM access_tokens WHERE id = ?';

/** A token's row with what its use needs from its consent, application environment and person. */
export interface AccessTokenGrantRow {
  token_hash: string;
  consent_id: string;
  session_id_hash: string | null;
  person_id: string;
  scopes: string;
  acr: string;
  liveness_verified: number;
  face_match_verified: number;
  claims: string | null;
  application_id: string;
  environment_id: string;
  environment: Environment;
  /** The scopes the application environment has now (JSON). */
  environment_scopes: string;
  document_types: string;
  document_countries: string;
  full_number_approved: number;
  /** 1 when the token is neither revoked nor expired and its person is active. */
  usable: number;
  /** 1 when its consent is in force. */
  consent_in_force: number;
}

// One indexed read per use. The rules are computed, not filtered on, so a caller can say which one
// failed, and only after it checked the hash. CAST(? AS TEXT), not a bare ?: see client.store.ts.
const GRANT = `SELECT t.token_hash, t.consent_id, c.session_id_hash, t.person_id, t.scopes, t.acr, t.liveness_verified,
    t.face_match_verified, t.claims, c.application_id, e.id AS environment_id, e.environment,
    e.scopes AS environment_scopes, e.document_types,
    e.document_countries, a.full_number_approved,
    t.revoked_at IS NULL AND t.expires_at > ? AND p.status = 'active' AS usable,
    ${consentInForce('c')} AS consent_in_force
  FROM access_tokens t
  JOIN consents c ON c.id = t.consent_id
  JOIN application_environments e ON e.id = t.environment_id
  JOIN applications a ON a.id = e.application_id
  JOIN persons p ON p.id = t.person_id
  WHERE t.id = CAST(? AS TEXT)`;

/** The token with id `id` and what its use at `now` needs (a module function: UserInfo is a hot path). */
export function accessTokenGrant(db: Db, id: string, now: number): AccessTokenGrantRow | undefined {
  return db.reads.prepare<AccessTokenGrantRow>(GRANT).get(now, now, id);
}

export function insertAccessToken(db: Db, t: NewAccessToken): void {
  db.sql
    .prepare(INSERT)
    .run(
      t.id,
      t.token_hash,
      t.environment_id,
      t.consent_id,
      t.person_id,
      t.scopes,
      t.acr,
      t.liveness_verified,
      t.face_match_verified,
      t.claims,
      t.created_at,
      t.expires_at,
    );
}

export function accessTokenOwner(db: Db, id: string): AccessTokenOwnerRow | undefined {
  return db.sql.prepare<AccessTokenOwnerRow>(OWNER).get(id);
}

/** Revokes the token if it is live (neither revoked nor expired); true for the one caller that did. */
export function revokeLiveAccessToken(db: Db, id: string, now: number): boolean {
  return db.sql.prepare(REVOKE_LIVE).run(now, id, now).changes === 1;
}

/** Revokes the access token issued from the code (RFC 6749 §4.1.2, RFC 9700 §4.2.4). */
export function revokeAccessTokenFromCode(db: Db, codeId: string, now: number): number {
  return db.sql.prepare(REVOKE_FROM_CODE).run(now, codeId).changes;
}

/** Revokes every unrevoked access token issued under the consent. */
export function revokeAccessTokensOfConsent(db: Db, consentId: string, now: number): number {
  return db.sql.prepare(REVOKE_FOR_CONSENT).run(now, consentId).changes;
}

export function deleteExpiredAccessTokens(db: Db, now: number): number {
  return db.sql.prepare('DELETE FROM access_tokens WHERE expires_at <= ?').run(now).changes;
}
