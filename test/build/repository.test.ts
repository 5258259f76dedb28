import { describe, expect, test } from 'bun:test';
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
});
