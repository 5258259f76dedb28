import { afterEach, expect, test } from 'bun:test';
import { exclusively } from '../../src/db/exclusive.ts';
import { type Db, openDb } from '../../src/db/open.ts';
import { tempDir, testDatabase } from '../helpers/context.ts';
import { freshDatabaseUrl } from '../helpers/postgres.ts';

let cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.reverse()) c();
  cleanups = [];
});

async function open(target: string): Promise<Db> {
  const db = await openDb(target);
  cleanups.push(() => db.close());
  return db;
}

const LOCK = 9_000_001;

/** Runs two holders of LOCK at once and returns the order in which they started and ended. */
async function race(a: Db, b: Db): Promise<string[]> {
  const order: string[] = [];
  const holder = (db: Db, name: string) =>
    exclusively(db, LOCK, async () => {
      order.push(`${name} in`);
      await new Promise((r) => setTimeout(r, 100));
      order.push(`${name} out`);
    });
  await Promise.all([holder(a, 'first'), holder(b, 'second')]);
  return order;
}

test('two holders of a lock in one process run one after the other, even when the first fails', async () => {
  const t = tempDir();
  cleanups.push(t.cleanup);
  const db = await open(testDatabase(t.dir));
  expect(await race(db, db)).toEqual(['first in', 'first out', 'second in', 'second out']);

  const failed = exclusively(db, LOCK, async () => {
    throw new Error('boom');
  });
  await expect(failed).rejects.toThrow('boom');
  expect(await exclusively(db, LOCK, async () => 'next')).toBe('next');
});

// On PostgreSQL whichever engine the suite runs: SQLite has no second instance to exclude.
test('on PostgreSQL two connections (two instances) take turns too, and the lock is let go after', async () => {
  const target = freshDatabaseUrl();
  const [a, b] = [await open(target), await open(target)];
  expect(await race(a, b)).toEqual(['first in', 'first out', 'second in', 'second out']);
  const held = a.sql
    .prepare<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND objid = ${LOCK}`,
    )
    .get()!.n;
  expect(held).toBe(0);
});
