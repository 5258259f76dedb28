import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createContext } from '../../src/bootstrap.ts';
import { parseConfig } from '../../src/config/load.ts';
import type { Config } from '../../src/config/schema.ts';
import type { AppContext } from '../../src/context.ts';
import type { Logger } from '../../src/log.ts';
import { type FixedClock, fixedClock } from '../../src/platform/clock.ts';
import { testLogger } from './log.ts';
import { dropDatabaseLater, freshDatabaseUrl, migratedDatabaseUrl } from './postgres.ts';

/** A directory of its own; its cleanup drops the PostgreSQL database it was given, if any. */
export function tempDir(label = 'verity'): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), `${label}-`));
  return {
    dir,
    cleanup: () => {
      releaseDatabase(dir);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Whether this run puts the tests on PostgreSQL (`VERITY_TEST_ENGINE=postgres`) rather than SQLite. */
export const onPostgres = process.env.VERITY_TEST_ENGINE === 'postgres';

/** A test of one engine's own mechanism names it; every other test runs on the engine under test. */
export type Engine = 'sqlite' | 'postgres';
const runEngine: Engine = onPostgres ? 'postgres' : 'sqlite';

/** The PostgreSQL database of each test directory, as each has its own SQLite file `verity.db`. */
const databaseUrls = new Map<string, string>();
const databaseUrl = (dir: string) => {
  if (!databaseUrls.has(dir)) databaseUrls.set(dir, freshDatabaseUrl());
  return databaseUrls.get(dir)!;
};

/** Databases that more than one directory uses, which none of them may drop. */
const sharedUrls = new Set<string>();

/**
 * Points `dir` at the PostgreSQL database of `from`: a directory of keys and config beside a database
 * that lives elsewhere, as a restore or another instance has it.
 */
export function useDatabaseOf(dir: string, from: string): void {
  const url = databaseUrl(from);
  sharedUrls.add(url);
  databaseUrls.set(dir, url);
}

/** Drops the PostgreSQL database of `dir`, whose test is done with it, unless another uses it too. */
function releaseDatabase(dir: string): void {
  const url = databaseUrls.get(dir);
  databaseUrls.delete(dir);
  if (url !== undefined && !sharedUrls.has(url)) dropDatabaseLater(url);
}

/**
 * Gives the new directory `dir` a PostgreSQL database whose schema is already migrated, as a
 * context or server finds it after its first start (the migrations themselves are tested on empty
 * databases). Nothing on SQLite.
 */
export function useMigratedDatabase(dir: string, engine = runEngine): void {
  if (engine === 'postgres') databaseUrls.set(dir, migratedDatabaseUrl());
}

/** The database of `dir` on the engine under test: its PostgreSQL database, or the file `verity.db`. */
export const testDatabase = (dir: string, engine = runEngine): string =>
  engine === 'postgres' ? databaseUrl(dir) : join(dir, 'verity.db');

/**
 * TOML for a config whose database and keys live in `dir`; `extra` is appended verbatim. On PostgreSQL
 * the database is one of its own (test/helpers/postgres.ts), the same each time for the same `dir`, so
 * a CLI given this config reaches the test context's database.
 */
export function testToml(dir: string, extra = '', engine = runEngine): string {
  const url = engine === 'postgres' ? `url = "${databaseUrl(dir)}"\n` : '';
  return `[database]\npath = "${join(dir, 'verity.db')}"\n${url}[keys]\ndir = "${join(dir, 'keys')}"\n${extra}\n`;
}

export function testConfig(dir: string, extra = '', engine = runEngine): Config {
  return parseConfig(testToml(dir, extra, engine));
}

export interface TestContext extends AppContext {
  clock: FixedClock;
  dir: string;
  cleanup(): void;
}

/** When a test's fixed clock starts unless it says otherwise. */
export const TEST_START = Date.UTC(2026, 5, 1, 12);

/** A fresh database, keys directory and fixed clock per test. */
export async function testContext(
  opts: { extra?: string; clock?: FixedClock; engine?: Engine; log?: Logger } = {},
): Promise<TestContext> {
  const { dir, cleanup } = tempDir();
  useMigratedDatabase(dir, opts.engine);
  const clock = opts.clock ?? fixedClock(TEST_START);
  const ctx = await createContext(testConfig(dir, opts.extra, opts.engine), {
    clock,
    log: opts.log ?? testLogger,
  });
  return {
    ...ctx,
    clock,
    dir,
    cleanup() {
      ctx.keys.close();
      ctx.db.close();
      cleanup();
    },
  };
}
