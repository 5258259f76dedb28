import { index, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { time } from './columns.ts';

export const developers = sqliteTable(
  'developers',
  {
    id: text('id').primaryKey(),
    email: text('email').notNull(),
    name: text('name').notNull().default(''),
    /** argon2id; null until the developer sets a password (invited, or created by the CLI). */
    passwordHash: text('password_hash'),
    status: text('status', { enum: ['active', 'disabled'] })
      .notNull()
      .default('active'),
    createdAt: time('created_at').notNull(),
    /**
     * When the developer proved they receive mail at `email`; null limits them to sandbox. Operator-
     * created and invited developers are verified at creation.
     */
    emailVerifiedAt: time('email_verified_at'),
  },
  (t) => [uniqueIndex('developers_email').on(t.email)],
);

/** Single-use links sent by email: address verification and password reset. Only SHA-256 is stored. */
export const developerEmailTokens = sqliteTable(
  'developer_email_tokens',
  {
    id: text('id').primaryKey(),
    developerId: text('developer_id')
      .notNull()
      .references(() => developers.id, { onDelete: 'cascade' }),
    purpose: text('purpose', { enum: ['verify_email', 'reset_password'] }).notNull(),
    tokenHash: text('token_hash').notNull().unique(),
    createdAt: time('created_at').notNull(),
    expiresAt: time('expires_at').notNull(),
    usedAt: time('used_at'),
  },
  (t) => [index('developer_email_tokens_dev').on(t.developerId)],
);

export const developerInvitations = sqliteTable('developer_invitations', {
  id: text('id').primaryKey(),
  email: text('email').notNull(),
  tokenHash: text('token_hash').notNull().unique(),
  createdAt: time('created_at').notNull(),
  expiresAt: time('expires_at').notNull(),
  acceptedAt: time('accepted_at'),
});

export const developerApiKeys = sqliteTable(
  'developer_api_keys',
  {
    id: text('id').primaryKey(),
    developerId: text('developer_id')
      .notNull()
      .references(() => developers.id, { onDelete: 'cascade' }),
    environment: text('environment', { enum: ['sandbox', 'production'] }).notNull(),
    keyHash: text('key_hash').notNull(),
    label: text('label').notNull().default(''),
    createdAt: time('created_at').notNull(),
    lastUsedAt: time('last_used_at'),
    revokedAt: time('revoked_at'),
  },
  (t) => [
    uniqueIndex('developer_api_keys_hash').on(t.keyHash),
    index('developer_api_keys_dev').on(t.developerId),
  ],
);
