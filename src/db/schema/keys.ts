import { sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { time } from './columns.ts';

/** Metadata of the RS256 signing keys; the private keys themselves are files in `[keys] dir`. */
export const signingKeys = sqliteTable('signing_keys', {
  kid: text('kid').primaryKey(),
  state: text('state', { enum: ['next', 'active', 'retired'] }).notNull(),
  createdAt: time('created_at').notNull(),
  /** When it became (or may become) active. */
  activatedAt: time('activated_at'),
  retiredAt: time('retired_at'),
  /** A retired key stays published until every token it signed has expired. */
  removeAfter: time('remove_after'),
});
