/**
 * Exercises the SQLite seam and the database setup through the code the server uses (openDb, migrate),
 * and reports what it saw as plain JSON. The seam test runs it in-process under Bun (bun:sqlite),
 * bundled for Node as `node probe.mjs DB_PATH` (better-sqlite3), and as `deno run -A seam-probe.ts
 * DB_PATH` (node:sqlite): the reports must be identical.
 */
import { sql } from 'drizzle-orm';
import { migrate } from '../../src/db/migrate.ts';
import { openDb } from '../../src/db/open.ts';
import { fixedClock } from '../../src/platform/clock.ts';

export async function probe(path: string) {
  const db = await openDb(path);
  const clock = fixedClock(Date.UTC(2026, 0, 1));
  const firstRun = migrate(db, clock);
  const secondRun = migrate(db, clock);
  const pragma = (name: string) => Object.values(db.sql.prepare(`PRAGMA ${name}`).get() ?? {})[0];
  const pragmas = {
    journal_mode: pragma('journal_mode'),
    foreign_keys: pragma('foreign_keys'),
    busy_timeout: pragma('busy_timeout'),
    synchronous: pragma('synchronous'),
  };

  db.sql.exec(`
    CREATE TABLE probe_parent (id INTEGER PRIMARY KEY) STRICT;
    CREATE TABLE probe (
      id INTEGER PRIMARY KEY,
      parent_id INTEGER REFERENCES probe_parent(id),
      flag INTEGER,
      note TEXT,
      data BLOB
    ) STRICT;
    INSERT INTO probe_parent (id) VALUES (1);
  `);
  const insert = 'INSERT INTO probe (parent_id, flag, note, data) VALUES (?, ?, ?, ?)';
  const count = () => db.sql.prepare<{ n: number }>('SELECT count(*) AS n FROM probe').get()!.n;

  const runResult = db.sql.prepare(insert).run(1, true, 'first', new Uint8Array([1, 2, 255]));
  db.sql.prepare(insert).run(null, false, undefined, null);
  // get() and all() on a statement that returns no rows still execute it.
  const getOnWrite = db.sql.prepare(insert).get(1, true, 'via get', null);
  const allOnWrite = db.sql.prepare(insert).all(1, true, 'via all', null);
  const returning = db.sql
    .prepare<{ id: number }>('INSERT INTO probe (note) VALUES (?) RETURNING id')
    .get('returning');
  const missing = db.sql.prepare('SELECT * FROM probe WHERE id = ?').get(9999);
  const rows = db.sql
    .prepare<{ id: number; flag: number | null; note: string | null; data: Uint8Array | null }>(
      'SELECT id, flag, note, data FROM probe ORDER BY id',
    )
    .all()
    .map((r) => ({ ...r, data: r.data ? Array.from(r.data) : null }));
  const updated = db.sql.prepare('UPDATE probe SET note = ? WHERE parent_id = ?').run('x', 1).changes;

  let foreignKeyRefused = false;
  try {
    db.sql.prepare(insert).run(42, null, null, null);
  } catch {
    foreignKeyRefused = true;
  }

  const before = count();
  let rolledBack = false;
  try {
    db.sql.transaction(() => {
      db.sql.prepare(insert).run(null, null, 'rolled back', null);
      throw new Error('abort');
    });
  } catch {
    rolledBack = count() === before;
  }
  // A nested transaction is a savepoint: its failure undoes only its own writes.
  db.sql.transaction(() => {
    db.sql.prepare(insert).run(null, null, 'outer', null);
    try {
      db.sql.transaction(() => {
        db.sql.prepare(insert).run(null, null, 'inner', null);
        throw new Error('inner abort');
      });
    } catch {}
  });
  const notes = db.sql
    .prepare<{ note: string }>("SELECT note FROM probe WHERE note IN ('outer', 'inner', 'rolled back')")
    .all()
    .map((r) => r.note);

  // drizzle's raw `get` differs by driver (an array of values under bun-sqlite, an object under
  // better-sqlite3); raw `all` returns objects under both.
  const viaOrm = db.orm.all<{ n: number }>(sql`SELECT count(*) AS n FROM probe`);

  const backupPath = `${path}.backup`;
  await db.backup(backupPath);
  db.close();
  const copy = await openDb(backupPath);
  const backupRows = copy.sql.prepare<{ n: number }>('SELECT count(*) AS n FROM probe').get()!.n;
  const backupMigrations = copy.sql.prepare('SELECT name FROM _migrations').all().length;
  copy.close();

  const reopened = await openDb(path);
  const afterReopen = migrate(reopened, clock);
  const journalMode = Object.values(reopened.sql.prepare('PRAGMA journal_mode').get() ?? {})[0];
  reopened.close();

  return {
    firstRun: firstRun.length,
    secondRun,
    afterReopen,
    pragmas,
    journalModeAfterReopen: journalMode,
    runResult,
    getOnWrite: getOnWrite ?? 'undefined',
    allOnWrite,
    returning,
    missing: missing === undefined ? 'undefined' : missing,
    rows,
    updated,
    foreignKeyRefused,
    rolledBack,
    notes,
    viaOrm,
    backupRows,
    backupMigrations,
  };
}

if (import.meta.main || process.argv[1]?.endsWith('.mjs')) {
  const path = process.argv[2];
  if (path) process.stdout.write(`${JSON.stringify(await probe(path))}\n`);
}
