import { randomId, randomToken, sha256Hex } from '../crypto/tokens.ts';
import type { Db } from '../db/open.ts';
import { type Clock, unix } from '../platform/clock.ts';

export type EmailTokenPurpose = 'verify_email' | 'reset_password';

/**
 * Creates a single-use link token (256 random bits) for a developer; returns it once, stores only its
 * SHA-256. Earlier unused tokens of the same purpose stop working, so only the latest link counts.
 */
export async function createEmailToken(
  db: Db,
  clock: Clock,
  input: { developerId: string; purpose: EmailTokenPurpose; ttlSeconds: number },
): Promise<string> {
  const token = randomToken(input.purpose === 'verify_email' ? 'vfy_' : 'rst_');
  const hash = await sha256Hex(token);
  const now = unix(clock);
  db.sql.transaction(() => {
    db.sql
      .prepare(
        'UPDATE developer_email_tokens SET used_at = ? WHERE developer_id = ? AND purpose = ? AND used_at IS NULL',
      )
      .run(now, input.developerId, input.purpose);
    db.sql
      .prepare(
        `INSERT INTO developer_email_tokens (id, developer_id, purpose, token_hash, created_at, expires_at)
         VALUES (?, ?, ?, ?, ?, ?)`,
      )
      .run(randomId('etk_'), input.developerId, input.purpose, hash, now, now + input.ttlSeconds);
  });
  return token;
}

/** The developer a usable token (unknown, used and expired ones are not) belongs to. */
export async function emailTokenOwner(
  db: Db,
  clock: Clock,
  token: string,
  purpose: EmailTokenPurpose,
): Promise<string | undefined> {
  const row = db.sql
    .prepare<{ developer_id: string }>(
      `SELECT developer_id FROM developer_email_tokens
       WHERE token_hash = ? AND purpose = ? AND used_at IS NULL AND expires_at > ?`,
    )
    .get(await sha256Hex(token), purpose, unix(clock));
  return row?.developer_id;
}

/**
 * Uses a token up: one conditional UPDATE, so of concurrent redemptions exactly one gets the developer
 * id and the others undefined. Call inside the transaction that applies the token's effect.
 */
export function redeemEmailToken(
  db: Db,
  clock: Clock,
  tokenHash: string,
  purpose: EmailTokenPurpose,
): string | undefined {
  const now = unix(clock);
  return db.sql
    .prepare<{ developer_id: string }>(
      `UPDATE developer_email_tokens SET used_at = ?
       WHERE token_hash = ? AND purpose = ? AND used_at IS NULL AND expires_at > ?
       RETURNING developer_id`,
    )
    .get(now, tokenHash, purpose, now)?.developer_id;
}

/**
 * Gives back a token just used up whose effect could not be applied (the hashing pool was busy),
 * unless a newer link of the same kind has replaced it meanwhile: only the latest link counts.
 */
export function releaseEmailToken(db: Db, tokenHash: string, purpose: EmailTokenPurpose): void {
  db.sql
    .prepare(
      `UPDATE developer_email_tokens SET used_at = NULL
       WHERE token_hash = ? AND purpose = ? AND NOT EXISTS (
         SELECT 1 FROM developer_email_tokens newer
         WHERE newer.developer_id = developer_email_tokens.developer_id AND newer.purpose = developer_email_tokens.purpose
           AND newer.id <> developer_email_tokens.id AND newer.created_at >= developer_email_tokens.created_at)`,
    )
    .run(tokenHash, purpose);
}
