import { expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const src = join(import.meta.dir, '../../src');

/** What only src/platform/ may use: the runtime differences live behind its Runtime interface. */
const RUNTIME_SPECIFIC = [/\bisBun\b/, /\bBun\./, /\bDeno\./, /\bBuffer\b/, /['"]bun(:[a-z]+)?['"]/];

test('no runtime-specific code outside src/platform/', () => {
  const found: string[] = [];
  for (const file of new Bun.Glob('**/*.{ts,tsx}').scanSync(src)) {
    if (file.startsWith('platform/')) continue;
    readFileSync(join(src, file), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (RUNTIME_SPECIFIC.some((p) => p.test(line))) found.push(`src/${file}:${i + 1}: ${line.trim()}`);
      });
  }
  expect(found).toEqual([]);
});
