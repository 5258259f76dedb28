import { describe, expect, test } from 'bun:test';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dir, '../..');
const git = (...args: string[]) => {
  const run = Bun.spawnSync(['git', ...args], { cwd: root, stdout: 'pipe', stderr: 'pipe' });
  if (run.exitCode !== 0) throw new Error(`git ${args.join(' ')}: ${run.stderr}`);
  return run.stdout.toString().split('\n').filter(Boolean);
};

describe('repository', () => {
  // A fresh clone is what CI and a newcomer get: a source file hidden by .gitignore works here and
  // nowhere else.
  test('.gitignore hides nothing under the source folders', () => {
    const hidden = git(
      'ls-files',
      '--others',
      '--ignored',
      '--exclude-standard',
      '--',
      'src',
      'test',
      'scripts',
      'migrations',
      'docs',
      '.ci',
    );
    expect(hidden).toEqual([]);
  });

  test('the generated migrations module is committed with the SQL it embeds', () => {
    const tracked = git('ls-files', '--', 'src/db/migrations.gen.ts', 'migrations');
    expect(tracked).toContain('src/db/migrations.gen.ts');
    expect(tracked.some((f) => f.endsWith('.sql'))).toBe(true);
  });

  test('the README gives the two set-up commands and links only to files that exist', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toContain('npm ci && npm test');
    const links = [...readme.matchAll(/\]\(([^)#:]+)\)/g)].map((m) => m[1]!);
    expect(links.length).toBeGreaterThan(0);
    expect(links.filter((l) => !existsSync(join(root, l)))).toEqual([]);
  });

  // The README is a front door; the reference lives in docs/.
  test('the README stays under 8 KB and every docs/ link resolves', () => {
    expect(readFileSync(join(root, 'README.md')).length).toBeLessThanOrEqual(8192);
    for (const doc of git('ls-files', '--', 'docs/*.md', 'scripts/bench/README.md')) {
      const text = readFileSync(join(root, doc), 'utf8');
      const links = [...text.matchAll(/\]\(([^)#:]+)(#[^)]*)?\)/g)].map((m) => m[1]!);
      const dir = join(root, doc, '..');
      expect({ doc, missing: links.filter((l) => !existsSync(join(dir, l))) }).toEqual({ doc, missing: [] });
    }
  });

  // A section that moves leaves its links pointing at nothing; a missing anchor still opens the file.
  test('every link to a section of a doc, from the docs or the code, names a section it has', () => {
    const anchors = (doc: string) => {
      const text = readFileSync(doc, 'utf8');
      const headings = [...text.matchAll(/^#+ (.+)$/gm)].map((m) =>
        m[1]!
          .toLowerCase()
          .replace(/[^\p{L}\p{N} _-]/gu, '')
          .replace(/ /g, '-'),
      );
      return new Set([...headings, ...[...text.matchAll(/<a id="([^"]+)">/g)].map((m) => m[1]!)]);
    };
    const broken: string[] = [];
    const check = (from: string, target: string, anchor: string) => {
      if (!existsSync(target) || !anchors(target).has(anchor)) broken.push(`${from} → ${target}#${anchor}`);
    };
    for (const doc of git('ls-files', '--', '*.md')) {
      const text = readFileSync(join(root, doc), 'utf8');
      for (const [, file, anchor] of text.matchAll(/\]\(([^)#:]*)#([^)]+)\)/g)) {
        check(doc, file ? join(root, doc, '..', file) : join(root, doc), anchor!);
      }
    }
    for (const file of git('ls-files', '--', 'src', 'test', 'scripts', '.ci')) {
      if (!/\.(ts|tsx|sh)$/.test(file) && !file.startsWith('.ci/')) continue;
      const text = readFileSync(join(root, file), 'utf8');
      for (const [, doc, anchor] of text.matchAll(/\b(docs\/[a-z-]+\.md)#([a-z0-9_-]+)/g)) {
        check(file, join(root, doc!), anchor!);
      }
    }
    expect(broken).toEqual([]);
  });

  test("docs/architecture.md's folder table has a row for every folder under src/", () => {
    const doc = readFileSync(join(root, 'docs/architecture.md'), 'utf8');
    const rows = [...doc.matchAll(/^\| `(src\/[a-z-]+\/)`/gm)].map((m) => m[1]);
    const folders = readdirSync(join(root, 'src'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => `src/${e.name}/`);
    expect(rows.sort()).toEqual(folders.sort());
  });

  test('the npm scripts the README names exist', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const scripts = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts as Record<
      string,
      string
    >;
    const named = [...readme.matchAll(/npm run ([a-z:]+)/g)].map((m) => m[1]!);
    expect(named.length).toBeGreaterThan(3);
    expect(named.filter((n) => !(n in scripts))).toEqual([]);
    // The whole suite (its files on every core), then the store and end-to-end suites again on
    // PostgreSQL (their files on every core too, sharing one server).
    expect(scripts.test).toBe('bun test --parallel && npm run test:postgres');
    expect(scripts['test:postgres']).toStartWith('bun test/helpers/postgres-suite.ts test/');
    expect(scripts.start).toContain('serve');
  });
});
