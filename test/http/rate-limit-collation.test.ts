import { expect, test } from 'bun:test';
import { migrate } from '../../src/db/migrate.ts';
import { openDb } from '../../src/db/open.ts';
import { countHits, deleteEndedBuckets } from '../../src/http/rate-limit.store.ts';
import { fixedClock } from '../../src/platform/clock.ts';
import { freshDatabaseUrl } from '../helpers/postgres.ts';

// The cleanup selects a bucket's keys as a byte-order range (`oauth:` up to `oauth;`). An operator's
// `createdb` takes the server's locale, whose linguistic collation orders ':' and ';' otherwise: the
// range was empty there and ended buckets stayed forever. Needs PostgreSQL, in either suite.
test('ended rate-limit buckets are deleted on a PostgreSQL database with a linguistic collation', async () => {
  const base = freshDatabaseUrl();
  const name = `icu_${crypto.randomUUID().replaceAll('-', '')}`;
  const admin = await openDb(base);
  admin.sql.exec(
    `CREATE DATABASE ${name} TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C.utf8'`,
  );
  admin.close();
  const db = await openDb(base.replace(/\/[^/]+$/, `/${name}`));
  try {
    migrate(db, fixedClock(0));
    countHits(db, 'oauth:10.0.0.1', 1000, 1, 600);
    countHits(db, 'userinfo:at_0123', 1000, 1, 600);
    countHits(db, 'userinfo:at_later', 1900, 1, 600);
    expect(deleteEndedBuckets(db, 'oauth', 600, 2000)).toBe(1);
    expect(deleteEndedBuckets(db, 'userinfo', 600, 2000)).toBe(1);
    const left = db.sql.prepare<{ key: string }>('SELECT key FROM rate_limit_buckets ORDER BY key').all();
    expect(left.map((r) => r.key)).toEqual(['userinfo:at_later']);
  } finally {
    db.close();
  }
});
