/**
 * Builds the relying-party SDK as the npm package `@verity/sdk` and packs it:
 *   DIR/sdk/                       the package: lib/ (ES modules and .d.ts from src/sdk/ by tsc),
 *                                  package.json, README.md (packages/sdk/README.md)
 *   DIR/verity-sdk-VERSION.tgz     `npm pack` of it, installable with `npm install ./verity-sdk-….tgz`
 *
 * The package's version is Verity's, and its dependencies are exactly the bare imports of the emitted
 * code, at the ranges the root package.json pins, so the two cannot drift apart.
 *
 * Usage: bun scripts/pack-sdk.ts [--out DIR]   (DIR defaults to dist); `npm run build` calls it too.
 */
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(import.meta.dir, '..');

interface RootManifest {
  version: string;
  engines: Record<string, string>;
  dependencies: Record<string, string>;
}

function run(cmd: string[], cwd: string): string {
  const p = Bun.spawnSync(cmd, { cwd, stdout: 'pipe', stderr: 'pipe' });
  if (p.exitCode !== 0) throw new Error(`${cmd.join(' ')} failed:\n${p.stdout}${p.stderr}`);
  return p.stdout.toString();
}

/** The packages the emitted modules import by name (`jose`, `valibot/…` → `valibot`). */
async function bareImports(lib: string): Promise<string[]> {
  const scanner = new Bun.Transpiler({ loader: 'js' });
  const names = new Set<string>();
  for (const file of new Bun.Glob('**/*.js').scanSync(lib))
    for (const { path } of scanner.scanImports(await Bun.file(join(lib, file)).text()))
      if (!path.startsWith('.')) names.add(path.split('/', path.startsWith('@') ? 2 : 1).join('/'));
  return [...names].sort();
}

export async function packSdk(out: string): Promise<string> {
  const pkg = join(out, 'sdk');
  rmSync(pkg, { recursive: true, force: true });
  mkdirSync(pkg, { recursive: true });
  run(
    [join(root, 'node_modules/.bin/tsc'), '-p', 'packages/sdk/tsconfig.json', '--outDir', join(pkg, 'lib')],
    root,
  );

  // tsc rewrites `./x.ts` to `./x.js` in the JavaScript only; the same paths in the .d.ts files let every
  // TypeScript version and module resolution find them.
  for (const file of new Bun.Glob('**/*.d.ts').scanSync(join(pkg, 'lib'))) {
    const path = join(pkg, 'lib', file);
    writeFileSync(
      path,
      readFileSync(path, 'utf8').replace(/((?:from|import\()\s*['"]\.{1,2}\/[^'"]+)\.ts(['"])/g, '$1.js$2'),
    );
  }

  const manifest = (await Bun.file(join(root, 'package.json')).json()) as RootManifest;
  const dependencies: Record<string, string> = {};
  for (const name of await bareImports(join(pkg, 'lib'))) {
    const range = manifest.dependencies[name];
    if (!range) throw new Error(`the SDK imports ${name}, which is not a dependency in package.json`);
    dependencies[name] = range;
  }
  const entry = (path: string) => ({ types: `./lib/${path}.d.ts`, default: `./lib/${path}.js` });
  await Bun.write(
    join(pkg, 'package.json'),
    `${JSON.stringify(
      {
        name: '@verity/sdk',
        version: manifest.version,
        description:
          'Relying-party SDK for Verity, the self-hosted OpenID Connect provider: sign-in, tokens, claims, webhooks',
        type: 'module',
        exports: { '.': entry('sdk/index'), './browser': entry('sdk/browser/index') },
        engines: manifest.engines,
        dependencies,
      },
      null,
      2,
    )}\n`,
  );
  cpSync(join(root, 'packages/sdk/README.md'), join(pkg, 'README.md'));

  const packed = JSON.parse(run(['npm', 'pack', '--json', '--pack-destination', out], pkg)) as {
    filename: string;
  }[];
  return join(out, packed[0]!.filename);
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const outIndex = args.indexOf('--out');
  const out = outIndex >= 0 && args[outIndex + 1] ? args[outIndex + 1]! : join(root, 'dist');
  const started = performance.now();
  const tarball = await packSdk(out);
  console.log(`build: ${relative(root, tarball)} in ${((performance.now() - started) / 1000).toFixed(1)}s`);
}
