import { describe, expect, test } from 'bun:test';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(import.meta.dir, '../..');

/** The roles a file name may carry (`name.role.ts`); a domain module carries none. */
const ROLES = ['router', 'store', 'middleware', 'page', 'worker', 'gen'];

const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return /\.tsx?$/.test(e.name) ? [relative(root, path)] : [];
  });

/** The role suffix of a file name, if it has one: `keys.router.ts` → `router`. */
const role = (file: string) => /\.([a-z-]+)\.tsx?$/.exec(file)?.[1];

/** Names of the values a module exports (functions, constants, classes), not its types. */
const exportedValues = (text: string) =>
  [...text.matchAll(/^export (?:async )?(?:function\*?|const|let|class) ([\w$]+)/gm)].map((m) => m[1]!);

const isPage = (name: string) => /^[A-Z]\w*Page$/.test(name);

const files = sources(join(root, 'src'));

describe('file roles', () => {
  test('the checks see what they look for', () => {
    expect(role('src/keys/key.service.ts')).toBe('service');
    expect(role('src/portal/pages/app-form.page.tsx')).toBe('page');
    expect(role('src/keys/rotation.ts')).toBeUndefined();
    expect(exportedValues('export interface P {}\nexport function AppPage() {}\nfunction Row() {}')).toEqual([
      'AppPage',
    ]);
    expect(files.filter((f) => role(f) === 'page').length).toBeGreaterThan(10);
  });

  test('every role suffix under src/ is one of the known roles', () => {
    const unknown = files.filter((f) => role(f) !== undefined && !ROLES.includes(role(f)!));
    expect(unknown).toEqual([]);
  });

  // `.service.ts` meant a domain module, a cache and a router helper at once.
  test('no .service.ts remains', () => {
    expect(files.filter((f) => f.endsWith('.service.ts'))).toEqual([]);
  });

  test('a .page.tsx file exports exactly one page component and nothing else but types', () => {
    const wrong = files
      .filter((f) => role(f) === 'page')
      .map((f) => ({ f, values: exportedValues(readFileSync(join(root, f), 'utf8')) }))
      .filter(({ f, values }) => !f.endsWith('.tsx') || values.length !== 1 || !isPage(values[0]!));
    expect(wrong).toEqual([]);
  });

  test('page components live only in .page.tsx files', () => {
    const elsewhere = files
      .filter((f) => role(f) !== 'page')
      .flatMap((f) =>
        exportedValues(readFileSync(join(root, f), 'utf8'))
          .filter(isPage)
          .map((p) => `${f}: ${p}`),
      );
    expect(elsewhere).toEqual([]);
  });
});
