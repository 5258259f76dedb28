import { sql } from 'drizzle-orm';
import { index, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { applicationEnvironments, applications } from './applications.ts';
import { time } from './columns.ts';
import { persons } from './persons.ts';

/** Bound to application environment, purpose, scope set and person. */
export const consents = sqliteTable(
  'consents',
  {
    id: text('id').primaryKey(),
    applicationId: text('application_id')
      .notNull()
      .references(() => applications.id, { onDelete: 'cascade' }),
    environmentId: text('environment_id')
      .notNull()
      .references(() => applicationEnvironments.id, { onDelete: 'cascade' }),
    personId: text('person_id')
      .notNull()
      .references(() => persons.id, { onDelete: 'cascade' }),
    /**
     * For a sandbox persona (shared by every developer), the identity session that granted it: SHA-256
     * of the session cookie, moved along when sign-in rotates the id. NULL for production persons.
     */
    sessionIdHash: text('session_id_hash'),
    /** JSON array, sorted, so equal sets compare equal as text. */
    scopes: text('scopes').notNull(),
    purpose: text('purpose').notNull(),
    status: text('status', { enum: ['active', 'revoked', 'expired'] }).notNull(),
    grantedAt: time('granted_at').notNull(),
    expiresAt: time('expires_at').notNull(),
    lastUsedAt: time('last_used_at'),
    endedAt: time('ended_at'),
    endReason: text('end_reason', {
      enum: ['revoked_by_person', 'revoked_by_developer', 'revoked_by_operator', 'expired', 'disconnected'],
    }),
  },
  (t) => [
    index('consents_person').on(t.personId, t.status),
    index('consents_env').on(t.environmentId, t.status),
    index('consents_expires').on(t.status, t.expiresAt),
    index('consents_session').on(t.sessionIdHash).where(sql`session_id_hash IS NOT NULL`),
  ],
);
