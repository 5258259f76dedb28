import { describe, expect, test } from 'bun:test';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(import.meta.dir, '../..');

/**
 * What only a store may do. A `transaction()` call is allowed anywhere: running domain steps in one
 * transaction is not SQL. `.exec(` counts only with a literal argument, which a RegExp's never has.
 */
const FORBIDDEN: [string, RegExp][] = [
  ['a prepared statement', /\.prepare\s*[<(]/],
  ['an exec of SQL text', /\.exec\(\s*['"`]|\.sql\.exec\(/],
  ['a drizzle sql template', /\bsql`/],
  ['a drizzle query builder', /\.orm\b/],
  [
    'an import of the drizzle schema or drizzle-orm',
    /from\s+['"](?:[./]*\/db\/schema[^'"]*|drizzle-orm[^'"]*)['"]/,
  ],
];

/** Where SQL belongs: stores, the database module, and the driver seam. */
const isStoreSide = (file: string) =>
  file.endsWith('.store.ts') ||
  file.startsWith('src/db/') ||
  // The runtime adapters are the driver seam (transactions, pragmas, the checkpoint worker).
  file.startsWith('src/platform/');

const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return /\.tsx?$/.test(e.name) ? [relative(root, path)] : [];
  });

/** Every forbidden use in a text, as `line: what`. */
function violations(text: string): string[] {
  return text
    .split('\n')
    .flatMap((line, i) =>
      FORBIDDEN.filter(([, pattern]) => pattern.test(line)).map(([what]) => `${i + 1}: ${what}`),
    );
}

describe('store boundary', () => {
  test('SQL appears only in *.store.ts files and src/db/', () => {
    const found = sources(join(root, 'src'))
      .filter((f) => !isStoreSide(f))
      .flatMap((f) => violations(readFileSync(join(root, f), 'utf8')).map((v) => `${f}:${v}`));
    expect(found).toEqual([]);
  });

  test('each kind of SQL outside a store is caught', () => {
    expect(violations("ctx.db.sql.prepare('SELECT 1').get()")).toEqual(['1: a prepared statement']);
    expect(violations('db.sql.prepare<Row>(LOOKUP)')).toEqual(['1: a prepared statement']);
    expect(violations("db.exec('PRAGMA optimize')")).toEqual(['1: an exec of SQL text']);
    expect(violations('ctx.db.sql.exec(TEXT)')).toEqual(['1: an exec of SQL text']);
    expect(violations('const q = sql`SELECT 1`;')).toEqual(['1: a drizzle sql template']);
    expect(violations('db.orm.select().from(t)')).toEqual(['1: a drizzle query builder']);
    expect(violations("import { persons } from '../db/schema/persons.ts';")).toEqual([
      '1: an import of the drizzle schema or drizzle-orm',
    ]);
    expect(violations("import { eq } from 'drizzle-orm';")).toEqual([
      '1: an import of the drizzle schema or drizzle-orm',
    ]);
    // Not SQL: a RegExp match and a transaction around domain steps.
    expect(violations('const m = /^(\\d+)$/.exec(text);')).toEqual([]);
    expect(violations('ctx.db.sql.transaction(() => grant(ctx))')).toEqual([]);
  });
});
