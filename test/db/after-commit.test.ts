import { describe, expect, test } from 'bun:test';
import { openDb } from '../../src/db/open.ts';
import { tempDir, testDatabase } from '../helpers/context.ts';

async function setup() {
  const { dir, cleanup } = tempDir();
  const db = await openDb(testDatabase(dir));
  db.sql.exec('CREATE TABLE t (k TEXT PRIMARY KEY)');
  const insert = (k: string) => db.sql.prepare('INSERT INTO t (k) VALUES (?)').run(k);
  const count = () => db.sql.prepare<{ n: number }>('SELECT count(*) AS n FROM t').get()!.n;
  const ran: string[] = [];
  /** Inserts k and, once committed, records it; what a committed row looks like from outside. */
  const write = (k: string) => {
    insert(k);
    db.afterCommit(() => ran.push(`${k}:${count()}`));
  };
  return {
    db,
    ran,
    write,
    close() {
      db.close();
      cleanup();
    },
  };
}

describe('afterCommit', () => {
  test('a transaction runs its callbacks once, after COMMIT, and a rolled-back one runs none', async () => {
    const s = await setup();
    try {
      s.db.sql.transaction(() => {
        s.write('a');
        s.write('b');
        expect(s.ran).toEqual([]);
      });
      // Both rows were in the database when the callbacks ran.
      expect(s.ran).toEqual(['a:2', 'b:2']);

      expect(() =>
        s.db.sql.transaction(() => {
          s.write('c');
          throw new Error('refused');
        }),
      ).toThrow('refused');
      expect(s.ran).toEqual(['a:2', 'b:2']);
    } finally {
      s.close();
    }
  });

  test('a nested transaction waits for the outer COMMIT; one rolled back to its savepoint runs nothing', async () => {
    const s = await setup();
    try {
      expect(() =>
        s.db.sql.transaction(() => {
          s.db.sql.transaction(() => s.write('a'));
          expect(s.ran).toEqual([]);
          throw new Error('outer fails');
        }),
      ).toThrow('outer fails');
      expect(s.ran).toEqual([]);

      s.db.sql.transaction(() => {
        s.write('b');
        try {
          s.db.sql.transaction(() => {
            s.write('c');
            throw new Error('inner fails');
          });
        } catch {}
      });
      expect(s.ran).toEqual(['b:1']);
    } finally {
      s.close();
    }
  });

  test('a replayed batch runs each committed unit once and nothing for the unit that threw', async () => {
    const s = await setup();
    try {
      let runs = 0;
      const results = await Promise.allSettled([
        s.db.batch(() => {
          runs++;
          s.write('a');
        }),
        s.db.batch(() => {
          s.write('b');
          throw new Error('refused');
        }),
        s.db.batch(() => s.write('c')),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect(runs).toBe(2); // the first unit ran again when the batch was replayed unit by unit
      expect(s.ran).toEqual(['a:2', 'c:2']);
    } finally {
      s.close();
    }
  });

  test('a write outside any transaction has committed already, so its callback runs at once', async () => {
    const s = await setup();
    try {
      s.write('a');
      expect(s.ran).toEqual(['a:1']);
    } finally {
      s.close();
    }
  });
});
