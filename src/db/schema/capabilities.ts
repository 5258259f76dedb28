import { primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { flag, time } from './columns.ts';

/** Operator changes on top of the embedded capability dataset. */
export const capabilityOverrides = sqliteTable(
  'capability_overrides',
  {
    country: text('country').notNull(),
    documentType: text('document_type').notNull(),
    available: flag('available').notNull(),
    updatedAt: time('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.country, t.documentType] })],
);
