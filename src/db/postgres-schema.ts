import { getTableColumns, is, SQL } from 'drizzle-orm';
import {
  bigint,
  foreignKey,
  index,
  integer,
  type PgColumnBuilderBase,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { getTableConfig, SQLiteTable } from 'drizzle-orm/sqlite-core';
import * as sqlite from './schema/index.ts';

/**
 * The PostgreSQL schema, derived from the SQLite one (src/db/schema/), which stays the one source of
 * truth: drizzle-kit generates migrations/postgres/ from this module as it generates migrations/ from
 * that one. Columns keep their SQL names and their values: text stays text, integers (unix-second
 * times, counters) become bigint, flags stay 0/1 integers, so every statement means the same on both
 * engines (docs/architecture.md#postgresql).
 */
type Tables = Record<string, ReturnType<typeof pgTable>>;

function convert(table: SQLiteTable, converted: Map<SQLiteTable, ReturnType<typeof pgTable>>) {
  const config = getTableConfig(table);
  const columns: Record<string, PgColumnBuilderBase> = {};
  for (const [key, col] of Object.entries(getTableColumns(table))) {
    let b: ReturnType<typeof text> | ReturnType<typeof bigint> | ReturnType<typeof integer>;
    const autoIncrement = (col as unknown as { autoIncrement?: boolean }).autoIncrement;
    if (col.columnType === 'SQLiteText') b = text(col.name);
    else if (col.columnType === 'SQLiteBoolean') b = integer(col.name);
    else if (col.columnType === 'SQLiteInteger') b = bigint(col.name, { mode: 'number' });
    else throw new Error(`${config.name}.${col.name}: no PostgreSQL type for ${col.columnType}`);
    if (col.primary) b = b.primaryKey();
    if (autoIncrement) b = (b as ReturnType<typeof bigint>).generatedByDefaultAsIdentity();
    if (col.notNull && !col.primary) b = b.notNull();
    if (col.isUnique) b = b.unique(col.uniqueName);
    if (col.hasDefault && col.default !== undefined) {
      const value = col.default;
      b = b.default((typeof value === 'boolean' ? Number(value) : value) as never);
    }
    columns[key] = b;
  }
  return pgTable(config.name, columns, (t) => {
    const cols = t as unknown as Record<string, never>;
    const byName = (name: string) => {
      const key = Object.entries(getTableColumns(table)).find(([, c]) => c.name === name)![0];
      return cols[key]!;
    };
    return [
      ...config.indexes.map((i) => {
        const on = i.config.columns.map((c) => byName((c as { name: string }).name));
        const made = (i.config.unique ? uniqueIndex(i.config.name) : index(i.config.name)).on(
          ...(on as [never]),
        );
        return i.config.where && is(i.config.where, SQL) ? made.where(i.config.where) : made;
      }),
      ...config.primaryKeys.map((pk) =>
        primaryKey({ columns: pk.columns.map((c) => byName(c.name)) as [never] }),
      ),
      ...config.foreignKeys.map((fk) => {
        const ref = fk.reference();
        // Run lazily, when every table has been converted.
        const targetCols = converted.get(ref.foreignTable as SQLiteTable) as unknown as Record<string, never>;
        const targetKey = (name: string) =>
          Object.entries(getTableColumns(ref.foreignTable)).find(([, c]) => c.name === name)![0];
        return foreignKey({
          columns: ref.columns.map((c) => byName(c.name)) as [never],
          foreignColumns: ref.foreignColumns.map((c) => targetCols[targetKey(c.name)]!) as [never],
        })
          .onDelete(fk.onDelete ?? 'no action')
          .onUpdate(fk.onUpdate ?? 'no action');
      }),
    ];
  });
}

const converted = new Map<SQLiteTable, ReturnType<typeof pgTable>>();
export const tables: Tables = {};
for (const [name, value] of Object.entries(sqlite)) {
  if (!is(value, SQLiteTable)) continue;
  const table = convert(value, converted);
  converted.set(value, table);
  tables[name] = table;
}
