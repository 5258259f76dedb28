/**
 * Builds the release artifacts:
 *   dist/verity            one self-contained executable (`bun build --compile`): migrations, fixtures and
 *                          data are modules under src/, so they are embedded with the code.
 *   dist/node/verity.mjs   one ES module for Node 20 (`node dist/node/verity.mjs serve --config F`); the
 *                          native better-sqlite3 driver stays a dependency resolved from node_modules.
 *                          Each worker (a `*.worker.ts` module under src/) is built beside it as NAME.mjs.
 *   dist/verity-deno       one self-contained executable (`deno compile`), SQLite through node:sqlite.
 *                          deno compile starts from Deno's runtime-only binary (denort), which the deno
 *                          package does not ship: it is downloaded once into Deno's cache, or taken from
 *                          DENORT_BIN. Without either (a machine offline) this artifact is skipped with
 *                          a message, and the build still succeeds.
 *   dist/verity-sdk-V.tgz  the relying-party SDK as the npm package @verity/sdk (see scripts/pack-sdk.ts).
 *
 * What each bundle holds and leaves out is in scripts/bundles.ts.
 *
 * Usage: bun scripts/build.ts [--binary-only | --node-only | --deno-only | --sdk-only] [--out DIR]
 * (DIR defaults to dist)
 */
import { readFileSync, realpathSync, rmSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { BUN_ONLY, binaryBundle, entrypoints, fileFreeEntries, NODE_ONLY, root, workers } from './bundles.ts';
import { packSdk } from './pack-sdk.ts';

const args = process.argv.slice(2);
const only = args.find((a) => /^--(binary|node|deno|sdk)-only$/.test(a));
const wantBinary = !only || only === '--binary-only';
const wantNode = !only || only === '--node-only';
const wantDeno = !only || only === '--deno-only';
const wantSdk = !only || only === '--sdk-only';
const outIndex = args.indexOf('--out');
const out = outIndex >= 0 && args[outIndex + 1] ? args[outIndex + 1]! : join(root, 'dist');

async function build(label: string, options: Bun.BuildConfig): Promise<void> {
  const started = performance.now();
  const result = await Bun.build({ plugins: [fileFreeEntries], ...options });
  for (const log of result.logs) console.error(String(log));
  if (!result.success) {
    console.error(`build: ${label} failed`);
    process.exit(1);
  }
  console.log(`build: ${label} in ${((performance.now() - started) / 1000).toFixed(1)}s`);
}

if (wantBinary) {
  rmSync(join(out, 'verity'), { force: true });
  await build(relative(root, join(out, 'verity')), {
    ...binaryBundle,
    compile: { outfile: join(out, 'verity') },
    minify: true,
  } as Bun.BuildConfig);
}

if (wantNode) {
  rmSync(join(out, 'node'), { recursive: true, force: true });
  await build(relative(root, join(out, 'node/verity.mjs')), {
    entrypoints,
    target: 'node',
    format: 'esm',
    outdir: join(out, 'node'),
    naming: 'verity.mjs',
    external: [...BUN_ONLY, ...NODE_ONLY],
  });
  // The entry point's `#!/usr/bin/env bun` line is carried over; this file is for Node.
  const file = join(out, 'node/verity.mjs');
  const text = await Bun.file(file).text();
  await Bun.write(file, text.replace(/^#!.*\n(\/\/ @bun\n)?/, '#!/usr/bin/env node\n'));
  for (const worker of workers) {
    const name = basename(worker, '.ts');
    await build(relative(root, join(out, `node/${name}.mjs`)), {
      entrypoints: [worker],
      target: 'node',
      format: 'esm',
      outdir: join(out, 'node'),
      naming: `${name}.mjs`,
      external: [...BUN_ONLY, ...NODE_ONLY],
    });
  }
}

/**
 * deno compile with an existing node_modules embeds all of it but what is excluded: the development
 * packages (marked `dev` in the lockfile) and the Node-only native driver are left out.
 */
function denoExcludes(): string[] {
  const modules = realpathSync(join(root, 'node_modules'));
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { dev?: boolean }>;
  };
  const dev = Object.entries(lock.packages)
    .filter(([path, p]) => p.dev && /^node_modules\/(@[^/]+\/)?[^/]+$/.test(path))
    .map(([path]) => path.slice('node_modules/'.length));
  return [...dev, 'better-sqlite3', '.bin'].map((p) => join(modules, p));
}

if (wantDeno) {
  const outfile = join(out, 'verity-deno');
  rmSync(outfile, { force: true });
  const started = performance.now();
  // deno.json makes Deno use this node_modules as it is: nothing is downloaded.
  const run = Bun.spawnSync(
    [
      join(root, 'node_modules/.bin/deno'),
      'compile',
      '--allow-all',
      '--no-check',
      ...workers.flatMap((w) => ['--include', w]),
      ...denoExcludes().flatMap((p) => ['--exclude', p]),
      '--output',
      outfile,
      join(root, 'src/main.ts'),
    ],
    { cwd: root, stdout: 'pipe', stderr: 'pipe' },
  );
  const log = `${run.stdout}${run.stderr}`;
  if (run.exitCode === 0) {
    console.log(`build: ${relative(root, outfile)} in ${((performance.now() - started) / 1000).toFixed(1)}s`);
  } else if (/denort|dl\.deno\.land/.test(log)) {
    console.warn(
      `build: ${relative(root, outfile)} skipped: deno compile needs Deno's runtime binary (denort), which ` +
        'could not be downloaded; set DENORT_BIN to a denort of the same version to build it offline',
    );
  } else {
    console.error(log);
    console.error(`build: ${relative(root, outfile)} failed`);
    process.exit(1);
  }
}

if (wantSdk) {
  const started = performance.now();
  const tarball = await packSdk(out);
  console.log(`build: ${relative(root, tarball)} in ${((performance.now() - started) / 1000).toFixed(1)}s`);
}
