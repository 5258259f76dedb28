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

  // Starting or ending any thread of the process can wake this thread's wait before the answer came
  // (seen under Bun): it must wait on, never read the buffer's previous answer as this one's.
  test('a statement gets its own rows while other threads start and stop', async () => {
    const db = await openPostgres(freshDatabaseUrl());
    const idle = URL.createObjectURL(new Blob(['']));
    const wrong: string[] = [];
    try {
      for (let i = 0; i < 3000; i++) {
        const { n } = db.prepare<{ n: number }>('SELECT CAST(? AS integer) AS n').get(i)!;
        if (n !== i) wrong.push(`${i} got ${n}`);
        if (i % 10 === 0) {
          const w = new Worker(idle);
          setTimeout(() => w.terminate(), 2);
          await Bun.sleep(1);
        }
      }
    } finally {
      db.close();
    }
    expect(wrong).toEqual([]);
  });

  test('an answer bigger than the shared buffer comes whole, and the next one after it', async () => {
    const db = await openPostgres(freshDatabaseUrl());
    try {
      const { big } = db.prepare<{ big: string }>("SELECT repeat('x', 3000000) || 'end' AS big").get()!;
      expect(big.length).toBe(3_000_003);
      expect(big.endsWith('xend')).toBe(true);
      expect(db.prepare('SELECT 2 AS two').get()).toEqual({ two: 2 });
    } finally {
      db.close();
    }
  });

  // Two instances starting together on a new database each check that no signing key is active and
  // insert one: the one that loses may be told so by a unique violation rather than a conflict.
  test('a check-then-insert that lost to a concurrent commit runs again and sees it', async () => {
    const url = freshDatabaseUrl();
    const a = await openPostgres(url);
    const b = await openPostgres(url);
    try {
      a.exec('CREATE TABLE active_key (alg text PRIMARY KEY, kid text NOT NULL)');
      let attempts = 0;
      const won = b.transaction(() => {
        attempts++;
        if (b.prepare("SELECT 1 FROM active_key WHERE alg = 'RS256'").get()) return false;
        if (attempts === 1)
          a.transaction(() => a.prepare("INSERT INTO active_key VALUES ('RS256', 'kid-a')").run());
        b.prepare("INSERT INTO active_key VALUES ('RS256', 'kid-b')").run();
        return true;
      });
      expect(won).toBe(false);
      expect(attempts).toBe(2);
      // A real duplicate is still refused.
      expect(() =>
        b.transaction(() => b.prepare("INSERT INTO active_key VALUES ('RS256', 'kid-c')").run()),
      ).toThrow('duplicate key');
    } finally {
      a.close();
      b.close();
    }
  });

  // A restart, a failover or pg_terminate_backend between two statements: the driver reconnects for
  // the next one, which must not run (nor the COMMIT) outside the transaction the first one was in. The
  // server rolled back what was sent; the transaction fails whole (the session's advisory locks are
  // gone too, so it is not run again behind its caller's back), and the next one runs on the new one.
  test('a transaction whose connection is lost between statements fails whole, never commits in half', async () => {
    const url = freshDatabaseUrl();
    const db = await openPostgres(url);
    const other = await openPostgres(url);
    try {
      db.exec('CREATE TABLE steps (step text)');
      const insert = (step: string) => db.prepare('INSERT INTO steps VALUES (?)').run(step);
      const pid = db.prepare<{ pid: number }>('SELECT pg_backend_pid() AS pid').get()!.pid;
      expect(() =>
        db.transaction(() => {
          insert('first');
          other.prepare('SELECT pg_terminate_backend(?)').get(pid);
          // Until the driver has seen the connection close, the next statement fails on it anyway.
          Bun.sleepSync(200);
          insert('second');
        }),
      ).toThrow('the connection to PostgreSQL was lost inside a transaction');
      expect(other.prepare('SELECT step FROM steps').all()).toEqual([]);
      db.transaction(() => {
        insert('third');
        insert('fourth');
      });
      expect(other.prepare('SELECT step FROM steps ORDER BY step').all()).toEqual([
        { step: 'fourth' },
        { step: 'third' },
      ]);
    } finally {
      db.close();
      other.close();
    }
  });
});
