import { sql } from 'drizzle-orm';
import { sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { time } from './columns.ts';

/** Metadata of the RS256 signing keys; the private keys themselves are files in `[keys] dir`. */
export const signingKeys = sqliteTable(
  'signing_keys',
  {
    kid: text('kid').primaryKey(),
    state: text('state', { enum: ['next', 'active', 'retired'] }).notNull(),
    createdAt: time('created_at').notNull(),
    /** When it became (or may become) active. */
    activatedAt: time('activated_at'),
    retiredAt: time('retired_at'),
    /** A retired key stays published until every token it signed has expired. */
    removeAfter: time('remove_after'),
  },
  // The database itself refuses a second active key, whatever code path (or hand-run SQL) tries it:
  // promotion must retire the old key before activating the new one.
  (t) => [uniqueIndex('signing_keys_one_active').on(t.state).where(sql`state = 'active'`)],
);
