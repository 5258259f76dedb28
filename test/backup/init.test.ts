import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseConfig } from '../../src/config/load.ts';
import { cli } from '../helpers/cli.ts';
import { tempDir } from '../helpers/context.ts';

let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir, cleanup } = tempDir('verity-init'));
});
afterEach(() => cleanup());

describe('verity init', () => {
  test('writes a valid, owner-only config with fresh secrets and prints next steps without them', async () => {
    const file = join(dir, 'etc', 'verity.toml');
    const r = await cli('init', '--config', file);
    expect(r.code).toBe(0);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const text = readFileSync(file, 'utf8');
    const config = parseConfig(text);
    expect(config.oidc.pairwise_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(config.webhooks.secret_key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(config.oidc.pairwise_secret).not.toBe(config.webhooks.secret_key);
    // Every documented key is present with its default, so the file explains itself.
    const defaults = parseConfig('');
    expect({ ...config, oidc: defaults.oidc, webhooks: { ...config.webhooks, secret_key: '' } }).toEqual(
      defaults,
    );
    const missing: string[] = [];
    for (const [section, values] of Object.entries(defaults))
      for (const [key, value] of Object.entries(values as Record<string, unknown>)) {
        const leaf = typeof value !== 'object' || value === null;
        if (leaf && !text.includes(`\n${key} = `)) missing.push(`${section}.${key}`);
        if (!leaf && section === 'rate_limits' && !text.includes(`[rate_limits.${key}]`))
          missing.push(`${section}.${key}`);
      }
    expect(missing).toEqual([]);

    expect(r.stdout).toContain('Next steps');
    expect(r.stdout).toContain(`verity serve --config ${file}`);
    expect(r.stdout).not.toContain(config.oidc.pairwise_secret);
    expect(r.stdout).not.toContain(config.webhooks.secret_key);

    // A config check accepts the written file.
    expect((await cli('config', 'check', '--config', file)).code).toBe(0);
  });

  test('each init draws new secrets', async () => {
    const a = join(dir, 'a.toml');
    const b = join(dir, 'b.toml');
    await cli('init', '--config', a);
    await cli('init', '--config', b);
    const [ca, cb] = [a, b].map((f) => parseConfig(readFileSync(f, 'utf8')));
    expect(ca!.oidc.pairwise_secret).not.toBe(cb!.oidc.pairwise_secret);
    expect(ca!.webhooks.secret_key).not.toBe(cb!.webhooks.secret_key);
  });

  test('refuses to overwrite an existing file unless --force is given', async () => {
    const file = join(dir, 'verity.toml');
    writeFileSync(file, '[server]\nlisten = "0.0.0.0:9000"\n');
    const r = await cli('init', '--config', file, '--json');
    expect(r.code).toBe(1);
    expect(r.json.error.message).toContain('already exists');
    expect(readFileSync(file, 'utf8')).toBe('[server]\nlisten = "0.0.0.0:9000"\n');

    const forced = await cli('init', '--force', '--config', file, '--json');
    expect(forced.code).toBe(0);
    expect(forced.json).toEqual({ file });
    expect(parseConfig(readFileSync(file, 'utf8')).server.listen).toBe('127.0.0.1:8080');
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });
});
