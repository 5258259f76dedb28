/**
 * What the release bundles hold (scripts/build.ts), shared with the test that checks what a start of
 * the binary loads (test/build/startup-modules.test.ts).
 *
 * Each build leaves out the other runtime's SQLite driver. The driver modules are imported dynamically by
 * src/platform/{bun,node,deno}.ts, and an external dynamic import stays dynamic, so the missing
 * driver is never loaded. Bundling drizzle's bun-sqlite adapter into the Node build would hoist its
 * `import "bun:sqlite"` to the top of the file, which Node refuses to load.
 */
import { join } from 'node:path';
import type { BunPlugin } from 'bun';

export const root = join(import.meta.dir, '..');

export const BUN_ONLY = ['bun:sqlite', 'bun:ffi', 'bun:jsc', 'drizzle-orm/bun-sqlite'];
export const NODE_ONLY = ['better-sqlite3', 'drizzle-orm/better-sqlite3'];

/**
 * An `external` entry also leaves out every subpath of it, but the Bun build needs one of
 * drizzle-orm/better-sqlite3's: its session, which PostgreSQL's synchronous drizzle runs on
 * (platform/sync-drizzle.ts; it imports no driver). So these are left out by exact name instead.
 */
const exactlyExternal = (names: string[]): BunPlugin => ({
  name: 'exactly-external',
  setup(build) {
    build.onResolve({ filter: exactly(...names) }, (args) => ({ path: args.path, external: true }));
  },
});

/** A filter matching exactly these module names. */
const exactly = (...names: string[]) =>
  new RegExp(`^(${names.map((n) => n.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&')).join('|')})$`);

/**
 * Packages whose Node entry point reads files by computed path at load time, which no bundle can carry
 * (i18n-iso-countries' entry-node.js requires every `langs/*.json`). Their file-free entry is used
 * instead; the code registers the one locale it needs with a static import.
 */
const FILE_FREE_ENTRY: Record<string, string> = {
  'i18n-iso-countries': 'i18n-iso-countries/index.js',
};

export const fileFreeEntries: BunPlugin = {
  name: 'file-free-entries',
  setup(build) {
    for (const [name, entry] of Object.entries(FILE_FREE_ENTRY)) {
      build.onResolve({ filter: exactly(name) }, () => ({ path: Bun.resolveSync(entry, root) }));
    }
  },
};

export const entrypoints = [join(root, 'src/main.ts')];
/** Started by `runtime.spawnWorker(new URL('./NAME.worker.ts', import.meta.url))`. */
export const workers = [...new Bun.Glob('src/**/*.worker.ts').scanSync(root)].map((f) => join(root, f));

/** The executable's bundle, before `compile` and `minify`. */
export const binaryBundle = {
  entrypoints: [...entrypoints, ...workers],
  target: 'bun',
  // Flat, as in the Node build: a worker is found beside the code that starts it.
  naming: { entry: '[name].[ext]', chunk: '[name]-[hash].[ext]' },
  // A dynamic import becomes a chunk loaded when it runs, so what an instance may never use (the mail
  // library, the OpenAPI document, the other runtimes' modules) stays out of its memory
  // (docs/architecture.md#memory).
  splitting: true,
  plugins: [fileFreeEntries, exactlyExternal(NODE_ONLY)],
} satisfies Bun.BuildConfig;
