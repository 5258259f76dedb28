import { afterAll, expect, test } from 'bun:test';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { binaryBundle } from '../../scripts/bundles.ts';

const out = mkdtempSync(join(tmpdir(), 'verity-chunks-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

/** The modules of the chunks a start evaluates: the entry and what it imports statically, transitively. */
async function startupModules(): Promise<string[]> {
  // As the executable is bundled, unminified: each module keeps the comment that names it.
  const result = await Bun.build({ ...binaryBundle, outdir: out });
  if (!result.success) throw new Error(result.logs.map(String).join('\n'));
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(join(out, file), 'utf8');
    for (const [, chunk] of text.matchAll(/^import[^;]*?from\s*"\.\/([^"]+)"/gm)) visit(chunk!);
  };
  visit('main.js');
  return [...seen].flatMap((f) =>
    [...readFileSync(join(out, f), 'utf8').matchAll(/^\/\/ ((?:src|node_modules)\/\S+)$/gm)].map(
      (m) => m[1]!,
    ),
  );
}

// What an instance may never use is loaded with its first use (docs/architecture.md#memory).
test('a start loads neither the pages, the OpenAPI document, the mail library nor zod classic', async () => {
  const modules = await startupModules();
  expect(modules).toContain('src/config/schema.ts');
  expect(modules).toContain('node_modules/zod/v4/mini/schemas.js');
  const lazy = [
    /^src\/(portal|identity)\/.*\.tsx$/,
    /^src\/openapi\/document\.ts$/,
    /^node_modules\/nodemailer\//,
    /^node_modules\/zod\/v4\/classic\//,
  ];
  expect(modules.filter((m) => lazy.some((p) => p.test(m)))).toEqual([]);
}, 30_000);
