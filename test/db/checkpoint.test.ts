import { expect, test } from 'bun:test';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { startBackgroundCheckpoints } from '../../src/db/checkpoint.ts';
import { openDb } from '../../src/db/open.ts';
import { silentLogger } from '../../src/log.ts';
import { tempDir } from '../helpers/context.ts';
import { waitFor } from '../helpers/wait.ts';

test('a worker checkpoints the log into the database file while commits never do', async () => {
  const { dir, cleanup } = tempDir();
  const path = join(dir, 'verity.db');
  const db = await openDb(path);
  try {
    db.sql.exec('CREATE TABLE t (v TEXT NOT NULL)');
    const stop = await startBackgroundCheckpoints(db, silentLogger);
    // The serving connection no longer checkpoints on commit.
    expect(db.sql.prepare<{ wal_autocheckpoint: number }>('PRAGMA wal_autocheckpoint').get()).toEqual({
      wal_autocheckpoint: 0,
    });
    const before = statSync(path).size;
    // About 1,500 pages: past the point where SQLite would have checkpointed on commit.
    const insert = db.sql.prepare('INSERT INTO t (v) VALUES (?)');
    for (let i = 0; i < 1500; i++) db.sql.transaction(() => insert.run('x'.repeat(3000)));
    // The rows reach the database file without this connection checkpointing.
    await waitFor('the rows in the database file', () => statSync(path).size > before + 1500 * 3000);
    await stop();
    // Stopped: SQLite's own automatic checkpoint is back.
    expect(db.sql.prepare<{ wal_autocheckpoint: number }>('PRAGMA wal_autocheckpoint').get()).toEqual({
      wal_autocheckpoint: 1000,
    });
  } finally {
    db.close();
    cleanup();
  }
});

test('if the worker cannot open the database, commits keep checkpointing as SQLite does by default', async () => {
  const { dir, cleanup } = tempDir();
  const db = await openDb(join(dir, 'verity.db'));
  const warnings: string[] = [];
  const log = { ...silentLogger, warn: (msg: string) => void warnings.push(msg) };
  try {
    const stop = await startBackgroundCheckpoints({ ...db, path: join(dir, 'missing', 'verity.db') }, log);
    expect(warnings).toEqual(['background checkpoints unavailable; checkpointing on commit']);
    expect(db.sql.prepare<{ wal_autocheckpoint: number }>('PRAGMA wal_autocheckpoint').get()).toEqual({
      wal_autocheckpoint: 1000,
    });
    await stop();
  } finally {
    db.close();
    cleanup();
  }
});
