import { sql } from 'drizzle-orm';
import { integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { time } from './columns.ts';

/**
 * Metadata of the ID-token signing keys, one set per algorithm rotated together; the private keys
 * themselves are files in `[keys] dir`.
 */
export const signingKeys = sqliteTable(
  'signing_keys',
  {
    kid: text('kid').primaryKey(),
    /** The JWS algorithm the key signs with; keys from before there were several are RS256. */
    alg: text('alg', { enum: ['RS256', 'ES256', 'EdDSA'] })
      .notNull()
      .default('RS256'),
    state: text('state', { enum: ['next', 'active', 'retired'] }).notNull(),
    createdAt: time('created_at').notNull(),
    /** When it became (or may become) active. */
    activatedAt: time('activated_at'),
    retiredAt: time('retired_at'),
    /** A retired key stays published until every token it signed has expired. */
    removeAfter: time('remove_after'),
    /**
     * Seconds: the longest that a token or proof it signed may live, the largest `token_ttl` or
     * `proof_ttl` of any start while it could sign. Null for a key from before it was kept.
     */
    longestLifetime: integer('longest_lifetime'),
  },
  // The database itself refuses a second active key of an algorithm, whatever code path (or hand-run
  // SQL) tries it: promotion must retire the old key before activating the new one.
  (t) => [uniqueIndex('signing_keys_one_active_per_alg').on(t.alg).where(sql`state = 'active'`)],
);

/**
 * A check value for each instance secret kept outside the database (pairwise secret, webhook secret
 * key): HMAC-SHA256(secret, "verity-instance-check:<name>"), hex. It proves at start that the secret
 * in use is the one this database was written with, without revealing it. The row `database` holds a
 * random id of the database itself instead, which its key files carry (src/keys/rotation.ts).
 */
export const instanceSecretChecks = sqliteTable('instance_secret_checks', {
  name: text('name', { enum: ['pairwise', 'webhook-secrets', 'database'] }).primaryKey(),
  check: text('check').notNull(),
  recordedAt: time('recorded_at').notNull(),
});
