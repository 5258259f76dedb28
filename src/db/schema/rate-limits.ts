import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { time } from './columns.ts';

/** Fixed-window counters: one row per bucket key (e.g. "oauth:ip:203.0.113.9"). */
export const rateLimitBuckets = sqliteTable('rate_limit_buckets', {
  key: text('key').primaryKey(),
  windowStart: time('window_start').notNull(),
  count: integer('count').notNull(),
});
