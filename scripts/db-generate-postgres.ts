/**
 * PostgreSQL's migrations (migrations/postgres/), from the schema derived in src/db/postgres-schema.ts:
 * drizzle-kit's API compares the last snapshot with the schema and writes the difference as the next
 * numbered migration. Hand-written ones (triggers) are numbered the same way. Called by db-generate.ts.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateDrizzleJson, generateMigration } from 'drizzle-kit/api';
import { tables } from '../src/db/postgres-schema.ts';

export const postgresDir = join(import.meta.dir, '..', 'migrations', 'postgres');
const snapshotFile = join(postgresDir, 'meta', 'snapshot.json');
export const HAND_WRITTEN_PG = '-- Hand-written migration for PostgreSQL --';

export const postgresFiles = () =>
  existsSync(postgresDir)
    ? readdirSync(postgresDir)
        .filter((f) => f.endsWith('.sql'))
        .sort()
    : [];

function previous() {
  return existsSync(snapshotFile) ? JSON.parse(readFileSync(snapshotFile, 'utf8')) : generateDrizzleJson({});
}

/** The statements the schema needs beyond the last snapshot, and the snapshot it would then be. */
async function pending() {
  const prev = previous();
  const next = generateDrizzleJson(tables, prev.id);
  return { next, statements: await generateMigration(prev, next) };
}

function write(name: string, sql: string): string {
  mkdirSync(join(postgresDir, 'meta'), { recursive: true });
  const file = `${String(postgresFiles().length).padStart(4, '0')}_${name}.sql`;
  writeFileSync(join(postgresDir, file), sql);
  return file;
}

export async function generatePostgres(name: string | undefined, custom: boolean): Promise<string[]> {
  if (custom) return [write(name ?? 'custom', `${HAND_WRITTEN_PG}\n`)];
  const { next, statements } = await pending();
  if (!statements.length) return [];
  const file = write(
    name ?? (postgresFiles().length ? 'schema' : 'init'),
    statements.join('\n--> statement-breakpoint\n'),
  );
  writeFileSync(snapshotFile, `${JSON.stringify(next, null, 2)}\n`);
  return [file];
}

/** The statements a schema change still needs; empty when the migrations are up to date. */
export async function ungeneratedPostgres(): Promise<string[]> {
  return (await pending()).statements;
}

export const readPostgres = (file: string) => readFileSync(join(postgresDir, file), 'utf8');
