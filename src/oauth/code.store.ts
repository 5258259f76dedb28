import type { Db } from '../db/open.ts';
import type { SqlRow } from '../db/row.ts';
import type { authorizationCodes } from '../db/schema/oauth.ts';

export type CodeRow = SqlRow<typeof authorizationCodes>;

export type NewCode = Omit<CodeRow, 'used_at' | 'token_id'>;

const INSERT_CODE = `INSERT INTO authorization_codes (id, code_hash, environment_id, client_id, redirect_uri,
    code_challenge, nonce, scopes, consent_id, person_id, auth_time, acr, amr, liveness_verified,
    face_match_verified, claims, created_at, expires_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;
const FIND_CODE = 'SELECT * FROM authorization_codes WHERE id = ?';
// The single-use guarantee: of any number of concurrent redemptions, exactly one changes the row. It
// records the token it is about to issue, for revocation on a later replay.
const REDEEM = 'UPDATE authorization_codes SET used_at = ?, token_id = ? WHERE id = ? AND used_at IS NULL';

export function createCodeStore(db: Db) {
  return {
    insert(c: NewCode): void {
      db.sql
        .prepare(INSERT_CODE)
        .run(
          c.id,
          c.code_hash,
          c.environment_id,
          c.client_id,
          c.redirect_uri,
          c.code_challenge,
          c.nonce,
          c.scopes,
          c.consent_id,
          c.person_id,
          c.auth_time,
          c.acr,
          c.amr,
          c.liveness_verified,
          c.face_match_verified,
          c.claims,
          c.created_at,
          c.expires_at,
        );
    },

    find(id: string): CodeRow | undefined {
      return db.reads.prepare<CodeRow>(FIND_CODE).get(id);
    },

    /** True for the one caller that marks the code used (and `tokenId` the token issued from it). */
    redeem(id: string, now: number, tokenId: string | null): boolean {
      return db.sql.prepare(REDEEM).run(now, tokenId, id).changes === 1;
    },

    /**
     * Codes are kept until every token they could have issued has expired, so a late replay still
     * revokes what it should.
     */
    deleteExpired(now: number, tokenTtl: number): number {
      return db.sql.prepare('DELETE FROM authorization_codes WHERE expires_at + ? <= ?').run(tokenTtl, now)
        .changes;
    },
  };
}
