import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { commands } from '../../src/cli/commands.ts';
import { cli } from '../helpers/cli.ts';

const reference = readFileSync(join(import.meta.dir, '../../docs/reference.md'), 'utf8');

/** The commands a row of the CLI table names: `verity apps review list\|approve` is two. */
function tableCommands(): string[] {
  const section = reference.slice(reference.indexOf('## CLI reference'), reference.indexOf('## Decisions'));
  return [...section.matchAll(/^\| `verity ([^`]+)`/gm)].flatMap(([, cell]) => {
    const words = cell!.split(' ').filter((w) => !w.startsWith('[') && !/^[A-Z_]+$/.test(w));
    const last = words.pop()!;
    return last.split('\\|').map((alt) => [...words, alt].join(' '));
  });
}

describe('the CLI reference', () => {
  test('the table in docs/reference.md lists exactly the commands the binary has', () => {
    const documented = tableCommands();
    const registered = commands.map((c) => c.name);
    expect(registered.filter((c) => !documented.includes(c))).toEqual([]);
    expect(documented.filter((c) => !registered.includes(c))).toEqual([]);
  });

  test('every flag in --help has a one-line description', async () => {
    for (const c of commands) {
      const r = await cli(...c.name.split(' '), '--help');
      expect(r.code).toBe(0);
      const flags = r.stdout.split('Options:\n')[1]!.trimEnd().split('\n');
      expect(flags.length).toBeGreaterThanOrEqual(3);
      for (const line of flags) expect(line).toMatch(/^ {2}--[a-z-]+( [A-Z]+)? +\S.*$/);
    }
  });
});
