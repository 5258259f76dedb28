import { afterAll, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const root = join(import.meta.dir, '../..');
const config = join(root, '.dependency-cruiser.cjs');

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}

/** Runs the same check as CI (`npm run depcheck`) in `cwd` and returns what it reports. */
function cruise(cwd: string): Violation[] {
  const run = Bun.spawnSync(
    [join(root, 'node_modules/.bin/depcruise'), 'src', '--config', config, '--output-type', 'json'],
    { cwd, stdout: 'pipe', stderr: 'pipe' },
  );
  const out = run.stdout.toString();
  if (!out.startsWith('{')) throw new Error(`depcruise: ${run.stderr}`);
  return JSON.parse(out).summary.violations;
}

const scratch = mkdtempSync(join(tmpdir(), 'verity-deps-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(scratch, 'tree-'));
  writeFileSync(join(dir, 'tsconfig.json'), '{"compilerOptions":{"allowImportingTsExtensions":true}}');
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, dirname(path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

describe('imports point downward', () => {
  test('src/ has no import cycle and no upward import', () => {
    expect(cruise(root).map((v) => `${v.rule.name}: ${v.from} → ${v.to}`)).toEqual([]);
  }, 30_000);

  // The check above passes on an empty rule set too; these trees prove each rule catches what it names.
  test('each rule reports the import it forbids', () => {
    const dir = tree({
      'src/config/schema.ts': "import { MAX_AGE } from '../keys/jwks.ts';\nexport const a = MAX_AGE;\n",
      'src/keys/jwks.ts': "import { b } from '../http/env.ts';\nexport const MAX_AGE = b;\n",
      'src/http/env.ts': "import type { Key } from '../keys/key.ts';\nexport const b = 1 as Key;\n",
      'src/keys/key.ts': 'export type Key = number;\n',
      'src/webhooks/a.ts': "import { y } from './b.ts';\nexport const x = () => y;\n",
      'src/webhooks/b.ts': "import { x } from './a.ts';\nexport const y = () => x;\n",
      'src/platform/clock.ts': "import { x } from '../webhooks/a.ts';\nexport const c = x;\n",
      'src/oauth/token.ts': "import { app } from '../app.ts';\nexport const t = app;\n",
      'src/app.ts': 'export const app = 1;\n',
    });
    const found = cruise(dir).map((v) => `${v.rule.name}: ${v.from} → ${v.to}`);
    expect(found).toContain('foundations-import-no-feature: src/config/schema.ts → src/keys/jwks.ts');
    expect(found).toContain('platform-imports-nothing-above: src/platform/clock.ts → src/webhooks/a.ts');
    expect(found).toContain('no-circular: src/webhooks/a.ts → src/webhooks/b.ts');
    expect(found).toContain('no-folder-cycle: src/keys → src/http');
    expect(found).toContain('composition-root-on-top: src/oauth/token.ts → src/app.ts');
  }, 30_000);
});
