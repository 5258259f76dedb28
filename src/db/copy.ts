import { getTableColumns, getTableName, is } from 'drizzle-orm';
import { getTableConfig, SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { Clock } from '../platform/clock.ts';
import { files } from '../platform/files.ts';
import { openElsewhere } from './in-use.ts';
import { migrate, pendingMigrations } from './migrate.ts';
import { type Db, isPostgresUrl, openDb, openDbReadOnly, redactUrl } from './open.ts';
import * as schema from './schema/index.ts';

/**
 * `verity db copy`: a SQLite database into an empty PostgreSQL one. Tables and columns have the same
 * names on both engines (postgres-schema.ts derives one from the other), so the drizzle schema gives
 * both the tables and their columns.
 */
export interface TableCount {
  table: string;
  source: number;
  target: number;
}

export interface CopyReport {
  from: string;
  to: string;
  /** Every table, in the order copied; `source` and `target` are the row counts on each side. */
  tables: TableCount[];
  /** PostgreSQL migrations the copy applied to the target first. */
  migrated: string[];
  /** Whether rows the target held were deleted first (--replace). */
  replaced: boolean;
}

/** The copy is refused as asked; nothing was changed. */
export class CopyRefusedError extends Error {}

/** The row counts differ after the copy: it was rolled back, the target is as it was. */
export class CopyMismatchError extends Error {
  constructor(readonly tables: TableCount[]) {
    super('the row counts differ between the two databases: the copy was rolled back');
  }
}

/** Rows per INSERT, fewer for wide tables: PostgreSQL takes at most 65,535 parameters a statement. */
const BATCH_ROWS = 500;
const MAX_PARAMETERS = 65_535;

const quote = (name: string) => `"${name}"`;

interface CopiedTable {
  name: string;
  columns: string[];
  /** The column PostgreSQL numbers by an identity (SQLite's AUTOINCREMENT), if any. */
  identity?: string;
}

/** Every table of the schema, each after the tables its foreign keys point to. */
export function tablesInCopyOrder(): CopiedTable[] {
  const all = (Object.values(schema) as unknown[])
    .filter((v): v is SQLiteTable => is(v, SQLiteTable))
    .sort((a, b) => getTableName(a).localeCompare(getTableName(b)));
  const ordered: SQLiteTable[] = [];
  const visit = (table: SQLiteTable, path: SQLiteTable[]) => {
    if (ordered.includes(table)) return;
    if (path.includes(table))
      throw new Error(`foreign keys go round: ${[...path, table].map((t) => getTableName(t)).join(' → ')}`);
    for (const fk of getTableConfig(table).foreignKeys) {
      const parent = fk.reference().foreignTable as SQLiteTable;
      if (parent !== table) visit(parent, [...path, table]);
    }
    ordered.push(table);
  };
  for (const table of all) visit(table, []);
  return ordered.map((table) => {
    const columns = Object.values(getTableColumns(table));
    const identity = columns.find((c) => (c as unknown as { autoIncrement?: boolean }).autoIncrement);
    return { name: getTableName(table), columns: columns.map((c) => c.name), identity: identity?.name };
  });
}

const countRows = (db: Db, table: string) =>
  db.sql.prepare<{ n: number }>(`SELECT count(*) AS n FROM ${quote(table)}`).get()!.n;

/** The Verity tables that exist in the PostgreSQL database and hold rows (before or after migrating). */
function tablesHoldingRows(db: Db, tables: CopiedTable[]): string[] {
  const present = new Set(
    db.sql
      .prepare<{ name: string }>(
        'SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema()',
      )
      .all()
      .map((r) => r.name),
  );
  return tables.filter((t) => present.has(t.name) && countRows(db, t.name) > 0).map((t) => t.name);
}

/** Copies one table in batches of rows, read in rowid order (every copied table has a rowid). */
function copyTable(source: Db, target: Db, table: CopiedTable): void {
  const columns = table.columns.map(quote).join(', ');
  const perBatch = Math.min(BATCH_ROWS, Math.floor(MAX_PARAMETERS / table.columns.length));
  const read = source.sql.prepare<Record<string, unknown>>(
    `SELECT rowid AS copy_rowid, ${columns} FROM ${quote(table.name)} WHERE rowid > ? ORDER BY rowid LIMIT ${perBatch}`,
  );
  const row = `(${table.columns.map(() => '?').join(', ')})`;
  const insert = (rows: number) =>
    target.sql.prepare(
      `INSERT INTO ${quote(table.name)} (${columns}) VALUES ${Array.from({ length: rows }, () => row).join(', ')}`,
    );
  for (let after = 0; ; ) {
    const rows = read.all(after);
    if (rows.length === 0) return;
    try {
      insert(rows.length).run(...rows.flatMap((r) => table.columns.map((c) => r[c])));
    } catch (e) {
      throw new Error(`copying ${table.name}: ${(e as Error).message}`, { cause: e });
    }
    after = rows.at(-1)!.copy_rowid as number;
    if (rows.length < perBatch) return;
  }
}

/**
 * The next id PostgreSQL hands out: past every copied id, and past any SQLite gave a row since deleted
 * (AUTOINCREMENT never reuses one, and neither does an identity).
 */
function resetIdentity(source: Db, target: Db, table: CopiedTable, column: string): void {
  const max =
    source.sql
      .prepare<{ m: number | null }>(`SELECT max(${quote(column)}) AS m FROM ${quote(table.name)}`)
      .get()?.m ?? 0;
  const used =
    source.sql.prepare<{ seq: number }>('SELECT seq FROM sqlite_sequence WHERE name = ?').get(table.name)
      ?.seq ?? 0;
  target.sql
    .prepare('SELECT setval(pg_get_serial_sequence(?, ?), ?, false) AS next')
    .get(quote(table.name), column, Math.max(max, used) + 1);
}

/**
 * Copies every table of the SQLite database at `from` (opened read-only, migrated to the latest
 * migration, not open in a server) into the PostgreSQL database at `to`, migrated first and empty of
 * rows unless `replace`. One transaction on the target: it commits only when every table's row count
 * equals the source's. The keys directory and the secrets are files and settings: not touched here.
 */
export async function copySqliteToPostgres(opts: {
  from: string;
  to: string;
  replace: boolean;
  clock: Clock;
}): Promise<CopyReport> {
  const { from, to } = opts;
  if (!isPostgresUrl(to)) throw new CopyRefusedError(`the target must be a postgres:// URL, not "${to}"`);
  if (!(await files.exists(from))) throw new CopyRefusedError(`no SQLite database at ${from}`);
  if (await openElsewhere(from))
    throw new CopyRefusedError(`${from} is open in another process: stop the server before copying`);
  const source = await openDbReadOnly(from);
  try {
    const pending = pendingMigrations(source);
    if (pending.length)
      throw new CopyRefusedError(
        `${from} needs migrations (${pending.join(', ')}): run "verity migrate" with [database] path = "${from}" first`,
      );
    const target = await openDb(to).catch((e: Error) => {
      throw new CopyRefusedError(`${redactUrl(to)}: ${e.message}`);
    });
    try {
      const tables = tablesInCopyOrder();
      const refuse = (holding: string[]) => {
        if (holding.length && !opts.replace)
          throw new CopyRefusedError(
            `${target.location} already holds rows (in ${holding.join(', ')}): copy into an empty database, or pass --replace to delete them first`,
          );
      };
      // Before migrating too, so a refused copy leaves the target as it found it.
      refuse(tablesHoldingRows(target, tables));
      const migrated = migrate(target, opts.clock);
      // One read transaction on the source: every table is read from the same snapshot.
      source.sql.exec('BEGIN');
      try {
        const { counts, replaced } = target.sql.transaction(() => {
          const holding = tablesHoldingRows(target, tables);
          refuse(holding);
          // Children first; row by row, so the triggers that version the caches see the deletes.
          if (holding.length)
            for (const t of [...tables].reverse()) target.sql.exec(`DELETE FROM ${quote(t.name)}`);
          for (const t of tables) copyTable(source, target, t);
          for (const t of tables) if (t.identity) resetIdentity(source, target, t, t.identity);
          const counts = tables.map((t) => ({
            table: t.name,
            source: countRows(source, t.name),
            target: countRows(target, t.name),
          }));
          if (counts.some((c) => c.source !== c.target)) throw new CopyMismatchError(counts);
          return { counts, replaced: holding.length > 0 };
        });
        return { from, to: target.location, tables: counts, migrated, replaced };
      } finally {
        source.sql.exec('COMMIT');
      }
    } finally {
      target.close();
    }
  } finally {
    source.close();
  }
}
