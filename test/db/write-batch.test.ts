import { describe, expect, test } from 'bun:test';
import { openDb } from '../../src/db/open.ts';
import { createWriteBatch } from '../../src/db/write-batch.ts';
import type { SqlDriver } from '../../src/platform/sql-driver.ts';
import { tempDir, testDatabase } from '../helpers/context.ts';

/** A driver that counts the transactions the batch runs, and can be told to fail the commit. */
function instrumented(sql: SqlDriver, opts: { failCommit?: boolean } = {}) {
  const ran: string[] = [];
  const driver: SqlDriver = {
    ...sql,
    transaction(fn) {
      const outer = !sql.inTransaction;
      if (!outer) ran.push('SAVEPOINT');
      const value = sql.transaction(() => {
        const v = fn();
        // Thrown where COMMIT would run: the transaction is rolled back as a failed COMMIT leaves it.
        if (outer && opts.failCommit) throw new Error('disk I/O error');
        return v;
      });
      if (outer) ran.push('COMMIT');
      return value;
    },
  };
  return {
    driver,
    commits: () => ran.filter((s) => s === 'COMMIT').length,
    savepoints: () => ran.filter((s) => s.startsWith('SAVEPOINT')).length,
  };
}

async function setup() {
  const { dir, cleanup } = tempDir();
  const target = testDatabase(dir);
  const db = await openDb(target);
  db.sql.exec('CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER NOT NULL)');
  // A second connection sees only what is committed.
  const other = await openDb(target);
  const rows = () =>
    other.sql
      .prepare<{ k: string }>('SELECT k FROM t ORDER BY k')
      .all()
      .map((r) => r.k);
  const insert = (k: string) => () => db.sql.prepare('INSERT INTO t (k, v) VALUES (?, 1)').run(k);
  return {
    db,
    rows,
    insert,
    close() {
      other.close();
      db.close();
      cleanup();
    },
  };
}

describe('group commit', () => {
  test('units queued in one turn commit together, once, and resolve only after the commit', async () => {
    const s = await setup();
    try {
      const { driver, commits } = instrumented(s.db.sql);
      const batch = createWriteBatch(driver);
      const pending = ['a', 'b', 'c', 'd'].map((k) => batch(s.insert(k)));
      // Nothing has run yet: the batch waits for the rest of this turn.
      expect(s.rows()).toEqual([]);
      const seen = await Promise.all(pending.map((p) => p.then(() => s.rows())));
      // Whichever promise settles first already finds every unit committed.
      for (const r of seen) expect(r).toEqual(['a', 'b', 'c', 'd']);
      expect(commits()).toBe(1);
    } finally {
      s.close();
    }
  });

  test('a unit that throws is rolled back alone and rejects; the others commit', async () => {
    const s = await setup();
    try {
      const batch = createWriteBatch(s.db.sql);
      const results = await Promise.allSettled([
        batch(s.insert('a')),
        batch(() => {
          s.insert('half')();
          throw new Error('refused');
        }),
        batch(s.insert('a')), // the primary key refuses a second 'a'
        batch(s.insert('b')),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
      expect((results[1] as PromiseRejectedResult).reason.message).toBe('refused');
      expect(s.rows()).toEqual(['a', 'b']);
    } finally {
      s.close();
    }
  });

  test('without a failure no savepoint is taken; after one, the earlier units run again and commit once', async () => {
    const s = await setup();
    try {
      const { driver, savepoints, commits } = instrumented(s.db.sql);
      const batch = createWriteBatch(driver);
      await Promise.all([batch(s.insert('a')), batch(s.insert('b'))]);
      expect(savepoints()).toBe(0);

      let runs = 0;
      const results = await Promise.allSettled([
        batch(() => {
          runs++;
          s.insert('c')();
          return runs;
        }),
        batch(s.insert('a')), // refused: the batch is rolled back and replayed unit by unit
        batch(s.insert('d')),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      // The first unit ran twice; the value it resolves with is the committed run's.
      expect(runs).toBe(2);
      expect((results[0] as PromiseFulfilledResult<number>).value).toBe(2);
      expect(savepoints()).toBe(3);
      expect(commits()).toBe(2);
      expect(s.rows()).toEqual(['a', 'b', 'c', 'd']);
    } finally {
      s.close();
    }
  });

  test('a failed commit rejects every unit of the batch and leaves nothing behind', async () => {
    const s = await setup();
    try {
      const { driver } = instrumented(s.db.sql, { failCommit: true });
      const batch = createWriteBatch(driver);
      const results = await Promise.allSettled([batch(s.insert('a')), batch(s.insert('b'))]);
      for (const r of results) {
        expect(r.status).toBe('rejected');
        expect((r as PromiseRejectedResult).reason.message).toBe('disk I/O error');
      }
      expect(s.rows()).toEqual([]);
      // The connection is usable again: the failed batch did not leave a transaction open.
      await createWriteBatch(s.db.sql)(s.insert('c'));
      expect(s.rows()).toEqual(['c']);
    } finally {
      s.close();
    }
  });

  test('a unit queued while a batch commits goes into the next batch', async () => {
    const s = await setup();
    try {
      const { driver, commits } = instrumented(s.db.sql);
      const batch = createWriteBatch(driver);
      let inner: Promise<unknown> | undefined;
      await batch(() => {
        s.insert('a')();
        inner = batch(s.insert('b'));
      });
      expect(s.rows()).toEqual(['a']);
      await inner;
      expect(s.rows()).toEqual(['a', 'b']);
      expect(commits()).toBe(2);
    } finally {
      s.close();
    }
  });
});
