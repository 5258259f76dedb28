import { sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { time } from './columns.ts';

/**
 * The last scheduled run of each job, claimed by one instance of all those sharing the database
 * (src/db/job-runs.ts): a job runs once per scheduled time, however many instances there are.
 */
export const jobRuns = sqliteTable('job_runs', {
  name: text('name').primaryKey(),
  /** The scheduled time of the last run claimed. */
  slot: time('slot').notNull(),
  /** When the claiming instance started that run, by its clock. */
  ranAt: time('ran_at').notNull(),
});
