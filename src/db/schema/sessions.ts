import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { time } from './columns.ts';

/** Server-side browser sessions of the identity experience and the developer portal. */
export const sessions = sqliteTable(
  'sessions',
  {
    /** SHA-256 of the cookie value. */
    idHash: text('id_hash').primaryKey(),
    kind: text('kind', { enum: ['identity', 'developer'] }).notNull(),
    /** Person or developer once signed in. */
    subjectId: text('subject_id'),
    csrfSecret: text('csrf_secret').notNull(),
    authTime: time('auth_time'),
    /** JSON array, e.g. ["pwd"]. */
    amr: text('amr').notNull().default('[]'),
    /** When the signed-in person last passed face assurance in this session (`[face] reuse_within`). */
    faceVerifiedAt: time('face_verified_at'),
    createdAt: time('created_at').notNull(),
    lastSeenAt: time('last_seen_at').notNull(),
    /** Absolute timeout. */
    expiresAt: time('expires_at').notNull(),
  },
  (t) => [index('sessions_subject').on(t.subjectId)],
);

/**
 * One-time results of portal forms (a secret just issued), sealed, waiting for the page the form
 * redirects to; taking one deletes it. Gone with the session.
 */
export const portalResults = sqliteTable(
  'portal_results',
  {
    sessionIdHash: text('session_id_hash')
      .notNull()
      .references(() => sessions.idHash, { onDelete: 'cascade' }),
    /** What the result is of, e.g. `client-secret:app_…:sandbox`. */
    slot: text('slot').notNull(),
    sealed: text('sealed').notNull(),
    expiresAt: time('expires_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.sessionIdHash, t.slot] }), index('portal_results_expiry').on(t.expiresAt)],
);

/** Sign-in throttling counters per account and per IP. */
export const signinAttempts = sqliteTable('signin_attempts', {
  key: text('key').primaryKey(),
  windowStart: time('window_start').notNull(),
  failures: integer('failures').notNull(),
});
