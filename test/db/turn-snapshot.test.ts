import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { type Db, databaseTarget, openDb } from '../../src/db/open.ts';
import { rateLimitBuckets } from '../../src/db/schema/rate-limits.ts';
import { type Engine, type TestContext, testContext } from '../helpers/context.ts';
import { nextTurn } from '../helpers/wait.ts';

// Hot-path reads (`db.reads`) share one read transaction per turn of the event loop, on a second
// connection to the SQLite file. These tests try to make them read something stale or leave a reader
// behind. The other connection stands for another process (the CLI). Each engine's mechanism is tested
// on that engine, in every run.

let ctx: TestContext;
let db: Db;
let other: Db;
const on = (engine: Engine) => {
  beforeEach(async () => {
    ctx = await testContext({ engine });
    db = ctx.db;
    other = await openDb(databaseTarget(ctx.config));
  });
  afterEach(() => {
    other.close();
    ctx.cleanup();
  });
};

const count = (key: string) =>
  db.reads.prepare<{ count: number }>('SELECT count FROM rate_limit_buckets WHERE key = ?').get(key)?.count;
const put = (on: Db, key: string, n: number) =>
  on.sql
    .prepare(
      `INSERT INTO rate_limit_buckets (key, window_start, count) VALUES (?, 0, ?)
       ON CONFLICT(key) DO UPDATE SET count = excluded.count`,
    )
    .run(key, n);
/** Whether the log can be truncated now, which waits for no reader (busy 1 if a reader is left). */
const truncatedByOther = () => {
  other.sql.exec('PRAGMA busy_timeout = 0');
  return other.sql.prepare<{ busy: number }>('PRAGMA wal_checkpoint(TRUNCATE)').get()!.busy === 0;
};

describe('reads at the snapshot of the turn (SQLite)', () => {
  on('sqlite');
  test("this process's own writes are read at once, however they were made", async () => {
    expect(count('k')).toBeUndefined(); // the turn's snapshot starts here
    put(db, 'k', 1);
    expect(count('k')).toBe(1);
    db.orm.update(rateLimitBuckets).set({ count: 2 }).where(eq(rateLimitBuckets.key, 'k')).run();
    expect(count('k')).toBe(2);
    db.sql.transaction(() => put(db, 'k', 3));
    expect(count('k')).toBe(3);
    await db.batch(() => put(db, 'k', 4));
    expect(count('k')).toBe(4);
    db.orm.delete(rateLimitBuckets).where(eq(rateLimitBuckets.key, 'k')).run();
    expect(count('k')).toBeUndefined();
  });

  test("inside this process's transaction, reads are the transaction's: its own writes and the latest", () => {
    expect(count('k')).toBeUndefined();
    put(other, 'k', 1); // committed by another process after this turn's snapshot started
    db.sql.transaction(() => {
      expect(count('k')).toBe(1);
      put(db, 'k', 2);
      expect(count('k')).toBe(2);
    });
  });

  test("another process's change is read from the next turn on", async () => {
    expect(count('k')).toBeUndefined();
    put(other, 'k', 1);
    await nextTurn();
    expect(count('k')).toBe(1);
  });

  test('no reader is left once the turn is over, or once released', async () => {
    put(other, 'k', 1);
    expect(count('k')).toBe(1);
    expect(truncatedByOther()).toBe(false); // the snapshot holds the log
    await nextTurn();
    expect(truncatedByOther()).toBe(true);
    put(other, 'k', 2);
    expect(count('k')).toBe(2);
    db.reads.release();
    expect(truncatedByOther()).toBe(true);
  });

  test("a value read once is kept for its snapshot: read again after this process's write, in the next turn, and always inside a transaction", async () => {
    let reads = 0;
    const kept = () =>
      db.reads.once('k', () => {
        reads++;
        return count('k');
      });
    expect(kept()).toBeUndefined();
    put(other, 'k', 1); // after the snapshot started: it is not in it
    expect(kept()).toBeUndefined();
    expect(reads).toBe(1);
    put(db, 'k', 2);
    expect(kept()).toBe(2);
    db.sql.transaction(() => {
      put(db, 'k', 3);
      expect(kept()).toBe(3);
    });
    await nextTurn();
    put(other, 'k', 4);
    expect([kept(), kept()]).toEqual([4, 4]);
    expect(reads).toBe(4);
  });

  test('the reading connection writes nothing, and a read that fails leaves no reader behind', () => {
    expect(count('k')).toBeUndefined();
    const write = db.reads.prepare(
      "INSERT INTO rate_limit_buckets (key, window_start, count) VALUES ('k', 0, 1) RETURNING count",
    );
    expect(() => write.get()).toThrow(/readonly|read-only|query_only/i);
    expect(truncatedByOther()).toBe(true);
    expect(count('k')).toBeUndefined();
  });
});

// PostgreSQL instances share the database and have no WAL read lock to save: reads go to the
// connection itself, so a change by another instance is read at once, within the same turn.
describe('reads on PostgreSQL', () => {
  on('postgres');
  test("another instance's change and this one's own are read at once", () => {
    expect(count('k')).toBeUndefined();
    put(other, 'k', 1);
    expect(count('k')).toBe(1);
    put(db, 'k', 2);
    expect(count('k')).toBe(2);
  });

  test('a value read once is read every time', () => {
    const kept = () => db.reads.once('k', () => count('k'));
    expect(kept()).toBeUndefined();
    put(other, 'k', 1);
    expect(kept()).toBe(1);
  });
});
