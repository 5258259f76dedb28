import { describe, expect, test } from 'bun:test';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BASELINE } from '../../src/db/baseline.ts';
import { migrations } from '../../src/db/migrations.gen.ts';

const dir = join(import.meta.dir, '../../migrations');
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.sql'))
  .sort();
const read = (file: string) => readFileSync(join(dir, file), 'utf8');

describe('migration files', () => {
  // What scripts/db-generate.ts embeds: every migrations/*.sql, in order, as it is on disk.
  test('the embedded migrations are exactly migrations/*.sql', () => {
    expect(migrations).toEqual(files.map((f) => ({ name: f.replace(/\.sql$/, ''), sql: read(f) })));
  });

  test('the baseline is frozen: migrations/0000_init.sql has its pinned SHA-256', () => {
    const sql = read(`${BASELINE.name}.sql`);
    expect(createHash('sha256').update(sql).digest('hex')).toBe(BASELINE.sha256);
  });

  // drizzle-kit numbers the next migration after its journal's last entry; a file it does not list
  // would share a number with the next one it writes.
  test("every migration is in drizzle-kit's journal, numbered 0000, 0001, … in file order", () => {
    const journal = JSON.parse(read('meta/_journal.json')) as { entries: { idx: number; tag: string }[] };
    expect(journal.entries.map((e) => `${e.tag}.sql`)).toEqual(files);
    files.forEach((f, i) => {
      expect(f.slice(0, 5)).toBe(`${String(i).padStart(4, '0')}_`);
      expect(journal.entries[i]?.idx).toBe(i);
    });
    const snapshots = readdirSync(join(dir, 'meta')).filter((f) => f.endsWith('_snapshot.json'));
    expect(snapshots.sort()).toEqual(files.map((f) => `${f.slice(0, 4)}_snapshot.json`));
  });
});
