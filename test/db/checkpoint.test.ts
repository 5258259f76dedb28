import { expect, test } from 'bun:test';
import { rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startBackgroundCheckpoints } from '../../src/db/checkpoint.ts';
import { type Db, openDb } from '../../src/db/open.ts';
import { type Logger, silentLogger } from '../../src/log.ts';
import { onPostgres, tempDir, testDatabase } from '../helpers/context.ts';
import { waitFor } from '../helpers/wait.ts';

/** A logger that keeps what is logged at info and above. */
function captured(): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  const keep = (msg: string) => void lines.push(msg);
  return { log: { ...silentLogger, info: keep, warn: keep, error: keep }, lines };
}

// WAL checkpoints are SQLite's; on PostgreSQL the server checkpoints itself (checkpoint.ts does nothing).
const sqliteOnly = test.skipIf(onPostgres);

const autocheckpoint = (db: Db) =>
  db.sql.prepare<{ wal_autocheckpoint: number }>('PRAGMA wal_autocheckpoint').get()!.wal_autocheckpoint;

/** About 1,500 pages: past the point where SQLite checkpoints on commit. */
function writePages(db: Db): void {
  const insert = db.sql.prepare('INSERT INTO t (v) VALUES (?)');
  for (let i = 0; i < 1500; i++) db.sql.transaction(() => insert.run('x'.repeat(3000)));
}

const walSize = (path: string) => statSync(`${path}-wal`).size;

sqliteOnly(
  'no worker while the log stays small; once it grows, a worker checkpoints it while commits never do',
  async () => {
    const { dir, cleanup } = tempDir();
    const path = join(dir, 'verity.db');
    const db = await openDb(path);
    try {
      db.sql.exec('CREATE TABLE t (v TEXT NOT NULL)');
      const stop = await startBackgroundCheckpoints(db, silentLogger, { everyMs: 100 });
      // What start-up wrote is in the database file, and no worker has taken over the checkpoints.
      expect(walSize(path)).toBe(0);
      await Bun.sleep(300);
      expect(autocheckpoint(db)).toBe(1000);
      // About 100 pages: past the 256 KiB at which the worker starts.
      const insert = db.sql.prepare('INSERT INTO t (v) VALUES (?)');
      for (let i = 0; i < 100; i++) db.sql.transaction(() => insert.run('x'.repeat(3000)));
      // The serving connection no longer checkpoints on commit.
      await waitFor('a working checkpoint worker', () => autocheckpoint(db) === 0);
      const before = statSync(path).size;
      writePages(db);
      // The rows reach the database file without this connection checkpointing.
      await waitFor('the rows in the database file', () => statSync(path).size > before + 1500 * 3000);
      await stop();
      // Stopped: SQLite's own automatic checkpoint is back.
      expect(autocheckpoint(db)).toBe(1000);
    } finally {
      db.close();
      cleanup();
    }
  },
);

sqliteOnly('stopped while it waits for the log to grow, it ends at once and logs nothing', async () => {
  const { dir, cleanup } = tempDir();
  const db = await openDb(join(dir, 'verity.db'));
  const { log, lines } = captured();
  try {
    const stop = await startBackgroundCheckpoints(db, log);
    await stop();
    expect(autocheckpoint(db)).toBe(1000);
    expect(lines).toEqual([]);
  } finally {
    db.close();
    cleanup();
  }
});

sqliteOnly(
  'if the worker cannot open the database, commits keep checkpointing until a worker can',
  async () => {
    const { dir, cleanup } = tempDir();
    const db = await openDb(join(dir, 'verity.db'));
    const { log, lines } = captured();
    try {
      // The worker is pointed at a directory that does not exist yet.
      const stop = await startBackgroundCheckpoints({ ...db, path: join(dir, 'later', 'verity.db') }, log, {
        startAfterBytes: 0,
      });
      expect(lines).toEqual(['background checkpoints unavailable; checkpointing on commit']);
      expect(autocheckpoint(db)).toBe(1000);
      // The cause goes away: the same database becomes reachable there, and the next try (1 s) takes over.
      symlinkSync(dir, join(dir, 'later'));
      await waitFor('the worker to take over', () => autocheckpoint(db) === 0);
      expect(lines).toEqual([
        'background checkpoints unavailable; checkpointing on commit',
        'background checkpoints resumed',
      ]);
      await stop();
      expect(autocheckpoint(db)).toBe(1000);
    } finally {
      db.close();
      cleanup();
    }
  },
);

sqliteOnly(
  'a worker that fails is started again with a backoff and checkpoints resume once the cause is gone',
  async () => {
    const { dir, cleanup } = tempDir();
    const path = join(dir, 'verity.db');
    const db = await openDb(path);
    // While this file exists every checkpoint of the worker fails, as on a full disk.
    const fault = join(dir, 'disk-full');
    const { log, lines } = captured();
    try {
      db.sql.exec('CREATE TABLE t (v TEXT NOT NULL)');
      const stop = await startBackgroundCheckpoints(db, log, {
        faultPath: fault,
        startAfterBytes: 0,
        everyMs: 100,
      });
      expect(autocheckpoint(db)).toBe(0);

      writeFileSync(fault, '');
      await waitFor('the failure to be noticed', () => lines.length === 1);
      expect(lines).toEqual(['background checkpoints failed; checkpointing on commit again']);
      // While the worker is down, commits checkpoint as SQLite does by default: the log never grows unbounded.
      expect(autocheckpoint(db)).toBe(1000);
      const beforeFallback = statSync(path).size;
      writePages(db);
      expect(statSync(path).size).toBeGreaterThan(beforeFallback + 900 * 3000);

      // Tries after 1 s (still failing, and not logged again), then after 2 s more.
      await Bun.sleep(1500);
      expect(lines).toHaveLength(1);
      rmSync(fault);
      await waitFor('the worker to take over again', () => autocheckpoint(db) === 0, 5000);
      expect(lines).toEqual([
        'background checkpoints failed; checkpointing on commit again',
        'background checkpoints resumed',
      ]);

      // The new worker is the one checkpointing now: the rows reach the file without this connection.
      const before = statSync(path).size;
      writePages(db);
      await waitFor('the rows in the database file', () => statSync(path).size > before + 1500 * 3000);
      await stop();
    } finally {
      db.close();
      cleanup();
    }
  },
);

test.skipIf(!onPostgres)(
  'on PostgreSQL no checkpoint worker starts, and stopping touches nothing',
  async () => {
    const { dir, cleanup } = tempDir();
    const db = await openDb(testDatabase(dir));
    try {
      const { log, lines } = captured();
      const stop = await startBackgroundCheckpoints(db, log);
      await stop();
      expect(lines).toEqual([]);
    } finally {
      db.close();
      cleanup();
    }
  },
);
