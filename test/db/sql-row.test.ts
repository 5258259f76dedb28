import { expect, test } from 'bun:test';
import { getTableColumns, getTableName, is, Table } from 'drizzle-orm';
import * as schema from '../../src/db/schema/index.ts';

// SqlRow (src/db/row.ts) derives a row's SQL names from the schema's keys; that holds only while
// every column is named as the snake_case of its key.
test("every column's SQL name is the snake_case of its schema key", () => {
  const snake = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  const tables = (Object.values(schema) as unknown[]).filter((t): t is Table => is(t, Table));
  expect(tables.length).toBeGreaterThan(20);
  const mismatched = tables.flatMap((t) =>
    Object.entries(getTableColumns(t))
      .filter(([key, column]) => snake(key) !== column.name)
      .map(([key, column]) => `${getTableName(t)}.${key} is ${column.name}`),
  );
  expect(mismatched).toEqual([]);
});
