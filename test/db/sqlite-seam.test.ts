import { describe, expect, test } from 'bun:test';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { onPostgres, tempDir } from '../helpers/context.ts';
import { probe } from './seam-probe.ts';

const root = join(import.meta.dir, '../..');

/** Bundles the probe for Node; the bundle sits inside the repository so Node resolves better-sqlite3. */
function bundleProbeForNode(): { file: string; cleanup(): void } {
  const outDir = join(root, '.tmp', `seam-${crypto.randomUUID()}`);
  mkdirSync(outDir, { recursive: true });
  const file = join(outDir, 'probe.mjs');
  const external = ['bun:sqlite', 'drizzle-orm/bun-sqlite', 'better-sqlite3', 'drizzle-orm/better-sqlite3'];
  const build = Bun.spawnSync(
    [
      process.execPath,
      'build',
      join(import.meta.dir, 'seam-probe.ts'),
      '--target',
      'node',
      ...external.flatMap((e) => ['--external', e]),
      '--outfile',
      file,
    ],
    { cwd: root, stdout: 'pipe', stderr: 'pipe' },
  );
  if (build.exitCode !== 0) throw new Error(`bundling the probe failed: ${build.stderr.toString()}`);
  return { file, cleanup: () => rmSync(outDir, { recursive: true, force: true }) };
}

// The SQLite drivers of each runtime; PostgreSQL has one driver (platform/postgres.ts) on every runtime.
describe.skipIf(onPostgres)('SQLite seam', () => {
  test('under Bun: pragmas, parameter binding, transactions, foreign keys and backup behave as specified', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const report = await probe(join(dir, 'verity.db'));
      expect(report.firstRun).toBeGreaterThan(0);
      expect(report.secondRun).toEqual([]);
      expect(report.afterReopen).toEqual([]);
      expect(report.pragmas).toEqual({
        journal_mode: 'wal',
        foreign_keys: 1,
        busy_timeout: 5000,
        synchronous: 2,
      });
      expect(report.journalModeAfterReopen).toBe('wal');
      expect(report.runResult).toEqual({ changes: 1 });
      expect(report.getOnWrite).toBe('undefined');
      expect(report.allOnWrite).toEqual([]);
      expect(report.returning).toEqual({ id: 5 });
      expect(report.missing).toBe('undefined');
      expect(report.rows.slice(0, 2)).toEqual([
        { id: 1, flag: 1, note: 'first', data: [1, 2, 255] },
        { id: 2, flag: 0, note: null, data: null },
      ]);
      // Rows 3 and 4 were written through get() and all().
      expect(report.rows.map((r) => r.note)).toEqual(['first', null, 'via get', 'via all', 'returning']);
      expect(report.updated).toBe(3);
      expect(report.foreignKeyRefused).toBe(true);
      expect(report.rolledBack).toBe(true);
      expect(report.notes).toEqual(['outer']);
      expect(report.viaOrm).toEqual([{ n: 6 }]);
      expect(report.backupRows).toBe(6);
      expect(report.backupMigrations).toBe(report.firstRun);
    } finally {
      cleanup();
    }
  });

  test('under Node 20 with better-sqlite3 the same probe gives the same report', async () => {
    const bundle = bundleProbeForNode();
    const bunDir = tempDir();
    const nodeDir = tempDir();
    try {
      const expected = await probe(join(bunDir.dir, 'verity.db'));
      const run = Bun.spawnSync(['node', bundle.file, join(nodeDir.dir, 'verity.db')], {
        cwd: root,
        stdout: 'pipe',
        stderr: 'pipe',
      });
      expect(run.stderr.toString()).toBe('');
      expect(run.exitCode).toBe(0);
      expect(JSON.parse(run.stdout.toString())).toEqual(expected);
    } finally {
      bundle.cleanup();
      bunDir.cleanup();
      nodeDir.cleanup();
    }
  });

  test('under Deno with node:sqlite the same probe gives the same report', async () => {
    const bunDir = tempDir();
    const denoDir = tempDir();
    try {
      const expected = await probe(join(bunDir.dir, 'verity.db'));
      const run = Bun.spawnSync(
        [
          join(root, 'node_modules/.bin/deno'),
          'run',
          '-A',
          join(import.meta.dir, 'seam-probe.ts'),
          join(denoDir.dir, 'verity.db'),
        ],
        { cwd: root, stdout: 'pipe', stderr: 'pipe' },
      );
      expect(run.stderr.toString()).toBe('');
      expect(run.exitCode).toBe(0);
      expect(JSON.parse(run.stdout.toString())).toEqual(expected);
    } finally {
      bunDir.cleanup();
      denoDir.cleanup();
    }
  });
});
