import { describe, expect, test } from 'bun:test';
import { openPostgres } from '../../src/platform/postgres.ts';
import { freshDatabaseUrl } from '../helpers/postgres.ts';

// The suite needs PostgreSQL (`npm test` runs on it too), so a missing one fails this test, never skips it.
describe('the PostgreSQL bridge', () => {
  // The connection's thread answers into one shared buffer; a late answer must never be taken for the
  // answer to the statement after it.
  test('a statement that is not answered in time ends the connection: no later one gets its rows', async () => {
    const db = await openPostgres(freshDatabaseUrl(), 400);
    try {
      expect(db.prepare('SELECT 1 AS one').get()).toEqual({ one: 1 });
      expect(() => db.prepare('SELECT pg_sleep(0.6) AS slept').get()).toThrow('did not answer within 0.4 s');
      // Its answer comes while this one waits.
      expect(() => db.prepare('SELECT 2 AS two').get()).toThrow(
        'the PostgreSQL connection thread ended: PostgreSQL did not answer within 0.4 s',
      );
    } finally {
      db.close();
    }
  });
});
