import type { Db } from '../../src/db/open.ts';

/**
 * A number that grows whenever something writes to the database, on either engine: SQLite's count of
 * changed rows, or PostgreSQL's next transaction id (only a transaction that writes is given one).
 */
export function writeCount(db: Db): number {
  const sql =
    db.engine === 'postgres'
      ? 'SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint AS n'
      : 'SELECT total_changes() AS n';
  return db.sql.prepare<{ n: number }>(sql).get()!.n;
}

/**
 * Makes inserts into `table` fail from now on (those matching `when`, an SQL condition on NEW), on
 * either engine: for tests that a change and its companion row commit together or not at all.
 */
export function refuseInserts(db: Db, table: string, when = 'true'): void {
  if (db.engine === 'postgres')
    db.sql.exec(
      `CREATE OR REPLACE FUNCTION refuse_insert() RETURNS trigger LANGUAGE plpgsql
         AS $$ BEGIN RAISE EXCEPTION 'refused'; END $$;
       CREATE TRIGGER refuse_${table} BEFORE INSERT ON ${table} FOR EACH ROW WHEN (${when})
         EXECUTE FUNCTION refuse_insert()`,
    );
  else
    db.sql.exec(
      `CREATE TRIGGER refuse_${table} BEFORE INSERT ON ${table} WHEN ${when}
       BEGIN SELECT RAISE(ABORT, 'refused'); END`,
    );
}
