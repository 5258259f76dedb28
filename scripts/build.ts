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
 * Usage: bun scripts/build.ts [--binary-only | --node-only] [--out DIR]   (DIR defaults to dist)
 */
import { rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { BunPlugin } from 'bun';

const root = join(import.meta.dir, '..');
const args = process.argv.slice(2);
const wantBinary = !args.includes('--node-only');
const wantNode = !args.includes('--binary-only');
const outIndex = args.indexOf('--out');
const out = outIndex >= 0 && args[outIndex + 1] ? args[outIndex + 1]! : join(root, 'dist');

const BUN_ONLY = ['bun:sqlite', 'drizzle-orm/bun-sqlite'];
const NODE_ONLY = ['better-sqlite3', 'drizzle-orm/better-sqlite3'];

/**
 * Packages whose Node entry point reads files by computed path at load time, which no bundle can carry
 * (i18n-iso-countries' entry-node.js requires every `langs/*.json`). Their file-free entry is used
 * instead; the code registers the one locale it needs with a static import.
 */
const FILE_FREE_ENTRY: Record<string, string> = {
  'i18n-iso-countries': 'i18n-iso-countries/index.js',
};

const fileFreeEntries: BunPlugin = {
  name: 'file-free-entries',
  setup(build) {
    for (const [name, entry] of Object.entries(FILE_FREE_ENTRY)) {
      const filter = new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&')}$`);
      build.onResolve({ filter }, () => ({ path: Bun.resolveSync(entry, root) }));
    }
  },
};

async function build(label: string, options: Parameters<typeof Bun.build>[0]): Promise<void> {
  const started = performance.now();
  const result = await Bun.build({ ...options, plugins: [fileFreeEntries] });
  for (const log of result.logs) console.error(String(log));
  if (!result.success) {
    console.error(`build: ${label} failed`);
    process.exit(1);
  }
  console.log(`build: ${label} in ${((performance.now() - started) / 1000).toFixed(1)}s`);
}

/**
 * Worker threads are entry points of their own; both builds keep them at their path under src/, where
 * src/platform/argon2-pool.ts looks for them relative to the main entry.
 */
const entrypoints = [join(root, 'src/main.ts'), join(root, 'src/platform/argon2.worker.ts')];

if (wantBinary) {
  rmSync(join(out, 'verity'), { force: true });
  await build(relative(root, join(out, 'verity')), {
    entrypoints,
    compile: { outfile: join(out, 'verity') },
    minify: true,
    external: NODE_ONLY,
  } as Parameters<typeof Bun.build>[0]);
}

if (wantNode) {
  rmSync(join(out, 'node'), { recursive: true, force: true });
  await build(relative(root, join(out, 'node/verity.mjs')), {
    entrypoints,
    target: 'node',
    format: 'esm',
    root: join(root, 'src'),
    outdir: join(out, 'node'),
    naming: '[dir]/[name].mjs',
    external: [...BUN_ONLY, ...NODE_ONLY],
  });
  // The entry point's `#!/usr/bin/env bun` line is carried over; this file is for Node.
  const file = join(out, 'node/verity.mjs');
  const text = await Bun.file(join(out, 'node/main.mjs')).text();
  await Bun.write(file, text.replace(/^#!.*\n(\/\/ @bun\n)?/, '#!/usr/bin/env node\n'));
  rmSync(join(out, 'node/main.mjs'));
}
