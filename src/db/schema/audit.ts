import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { time } from './columns.ts';

/** Operator and developer actions that change configuration or access. */
export const auditLog = sqliteTable(
  'audit_log',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    at: time('at').notNull(),
    /** "cli", "developer:<id>", "person:<id>", "system". */
    actor: text('actor').notNull(),
    action: text('action').notNull(),
    target: text('target'),
    /** JSON object; never secrets. */
    details: text('details').notNull().default('{}'),
  },
  (t) => [index('audit_log_at').on(t.at)],
);
