import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Db } from '../../src/db/open.ts';

/**
 * Something that changes whenever something writes to the database: SQLite's count of changed rows; on
 * PostgreSQL a digest of every row (its transaction ids and statistics are shared by the whole cluster).
 */
function writeCount(db: Db): number | string {
  if (db.engine === 'postgres') return createHash('sha256').update(storedText(db)).digest('hex');
  return db.sql.prepare<{ n: number }>('SELECT total_changes() AS n').get()!.n;
}

/**
 * writeCount once the database has been left alone for a while: writes the code under test started
 * before (an e-mail's delivery being recorded, say) land first, and so cannot be taken for later ones.
 */
export async function settledWriteCount(db: Db, quietMs = 300): Promise<number | string> {
  let last = writeCount(db);
  for (;;) {
    await new Promise((r) => setTimeout(r, quietMs));
    const now = writeCount(db);
    if (now === last) return now;
    last = now;
  }
}

/**
 * Makes inserts (or updates) of `table` fail from now on with `message` (those matching `when`, an SQL
 * condition on NEW), on either engine: for tests that a change and its companion rows commit together or
 * not at all, as a crash halfway would test it. Returns what lifts the refusal.
 */
export function refuseWrites(
  db: Db,
  table: string,
  opts: { on?: 'INSERT' | 'UPDATE'; when?: string; message?: string } = {},
): () => void {
  const { on = 'INSERT', when = 'true', message = 'refused' } = opts;
  const name = `refuse_${on.toLowerCase()}_${table}`;
  if (db.engine === 'postgres')
    db.sql.exec(
      `CREATE OR REPLACE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql
         AS $$ BEGIN RAISE EXCEPTION '${message}'; END $$;
       CREATE TRIGGER ${name} BEFORE ${on} ON ${table} FOR EACH ROW WHEN (${when})
         EXECUTE FUNCTION ${name}()`,
    );
  else
    db.sql.exec(
      `CREATE TRIGGER ${name} BEFORE ${on} ON ${table} WHEN ${when}
       BEGIN SELECT RAISE(ABORT, '${message}'); END`,
    );
  return () => db.sql.exec(`DROP TRIGGER ${name}${db.engine === 'postgres' ? ` ON ${table}` : ''}`);
}

/**
 * Everything the database holds, as text, to look for clear-text secrets: SQLite's file bytes after the
 * WAL is folded in; on PostgreSQL every row of every table (its files are the server's).
 */
export function storedText(db: Db): string {
  if (db.engine === 'sqlite') {
    db.sql.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    return readFileSync(db.path).toString('latin1');
  }
  const tables = db.sql
    .prepare<{ name: string }>(
      "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY 1",
    )
    .all();
  return tables
    .flatMap((t) => db.sql.prepare<{ r: string }>(`SELECT t::text AS r FROM "${t.name}" t ORDER BY 1`).all())
    .map((row) => row.r)
    .join('\n');
}
