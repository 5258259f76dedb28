/**
 * Builds the two release artifacts:
 *   dist/verity            one self-contained executable (`bun build --compile`): migrations, fixtures and
 *                          data are modules under src/, so they are embedded with the code.
 *   dist/node/verity.mjs   one ES module for Node 20 (`node dist/node/verity.mjs serve --config F`); the
 *                          native better-sqlite3 driver stays a dependency resolved from node_modules.
 *
 * Each build leaves out the other runtime's SQLite driver. The driver modules are imported dynamically by
 * src/db/open.ts and src/platform/sqlite.ts, and an external dynamic import stays dynamic, so the missing
 * driver is never loaded. Bundling drizzle's bun-sqlite adapter into the Node build would hoist its
 * `import "bun:sqlite"` to the top of the file, which Node refuses to load.
 *
 * Usage: bun scripts/build.ts [--binary-only | --node-only]
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dir, '..');
const args = process.argv.slice(2);
const wantBinary = !args.includes('--node-only');
const wantNode = !args.includes('--binary-only');

const BUN_ONLY = ['bun:sqlite', 'drizzle-orm/bun-sqlite'];
const NODE_ONLY = ['better-sqlite3', 'drizzle-orm/better-sqlite3'];
const externals = (names: string[]) => names.flatMap((n) => ['--external', n]);

function bunBuild(label: string, argv: string[]): void {
  const started = performance.now();
  const run = Bun.spawnSync([process.execPath, 'build', ...argv], {
    cwd: root,
    stdout: 'pipe',
    stderr: 'inherit',
  });
  if (run.exitCode !== 0) {
    process.stdout.write(run.stdout.toString());
    console.error(`build: ${label} failed`);
    process.exit(run.exitCode ?? 1);
  }
  console.log(`build: ${label} in ${((performance.now() - started) / 1000).toFixed(1)}s`);
}

if (wantBinary) {
  rmSync(join(root, 'dist/verity'), { force: true });
  bunBuild('dist/verity', [
    'src/main.ts',
    '--compile',
    '--minify',
    ...externals(NODE_ONLY),
    '--outfile',
    'dist/verity',
  ]);
}

if (wantNode) {
  rmSync(join(root, 'dist/node'), { recursive: true, force: true });
  bunBuild('dist/node/verity.mjs', [
    'src/main.ts',
    '--target',
    'node',
    '--format',
    'esm',
    ...externals(BUN_ONLY),
    ...externals(NODE_ONLY),
    '--outfile',
    'dist/node/verity.mjs',
  ]);
  // The entry point's `#!/usr/bin/env bun` line is carried over; this file is for Node.
  const out = join(root, 'dist/node/verity.mjs');
  const text = await Bun.file(out).text();
  await Bun.write(out, text.replace(/^#!.*\n(\/\/ @bun\n)?/, '#!/usr/bin/env node\n'));
}
