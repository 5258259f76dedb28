import { afterEach, expect, setDefaultTimeout, test } from 'bun:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli } from '../helpers/cli.ts';
import { tempDir } from '../helpers/context.ts';
import { freePort } from '../helpers/server.ts';
import { waitFor } from '../helpers/wait.ts';

setDefaultTimeout(60_000);

const main = join(import.meta.dir, '..', '..', 'src', 'main.ts');
let stop = () => {};
afterEach(() => stop());

/**
 * `verity demo --with-server` (npm start) turns localhost webhooks on only to try Verity on this
 * machine (a loopback issuer with the demo enabled). On a production-looking config it keeps
 * `[webhooks] allow_localhost_in_sandbox` as configured, and logs the same "risky setting" warnings
 * `verity serve` does: otherwise any sandbox developer could have the server post to any port of its
 * own machine, and nothing would say so.
 */
test('demo --with-server on an https issuer neither forces localhost webhooks on silently nor skips the warnings', async () => {
  const { dir, cleanup } = tempDir('verity-demo-with-server');
  const port = await freePort();
  const config = join(dir, 'verity.toml');
  writeFileSync(
    config,
    [
      '[server]',
      `listen = "127.0.0.1:${port}"`,
      'base_url = "https://id.example.com"',
      '[database]',
      `path = "${join(dir, 'verity.db')}"`,
      '[keys]',
      `dir = "${join(dir, 'keys')}"`,
      '[webhooks]',
      'allow_localhost_in_sandbox = false',
      '[demo]',
      'enabled = false',
      '',
    ].join('\n'),
  );
  expect((await cli('migrate', '--config', config)).code).toBe(0);
  // A sandbox developer with an API key and an application, made before the server starts.
  const dev = await cli('developers', 'create', '--email', 'dev@example.com', '--config', config, '--json');
  expect(dev.code).toBe(0);
  const key = await cli(
    'developers',
    'keys',
    'create',
    dev.json.developerId,
    '--env',
    'sandbox',
    '--config',
    config,
    '--json',
  );
  expect(key.code).toBe(0);
  const app = await cli(
    'apps',
    'create',
    '--name',
    'Shop',
    '--type',
    'confidential',
    '--redirect-uri',
    'https://rp.example/cb',
    '--scopes',
    'openid',
    '--owner',
    dev.json.developerId,
    '--config',
    config,
    '--json',
  );
  expect(app.code).toBe(0);

  const child = Bun.spawn([process.execPath, main, 'demo', '--with-server', '--config', config], {
    cwd: dir,
    stdout: 'pipe',
    stderr: 'pipe',
  });
  stop = () => {
    child.kill('SIGKILL');
    cleanup();
  };
  let out = '';
  const drain = async (s: ReadableStream<Uint8Array>) => {
    const d = new TextDecoder();
    const reader = s.getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read())
      out += d.decode(r.value, { stream: true });
  };
  void drain(child.stdout);
  void drain(child.stderr);
  await waitFor('the server to listen', () => out.includes('"msg":"listening"'), 30_000);
  await Bun.sleep(300);

  // Localhost webhooks stay refused: the config says so, and no demo is even started.
  const res = await fetch(
    `http://127.0.0.1:${port}/v1/developer/applications/${app.json.applicationId}/webhooks`,
    {
      method: 'POST',
      headers: { authorization: `Bearer ${key.json.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `http://localhost:${port}/healthz`, events: ['consent.revoked'] }),
    },
  );
  const status = res.status;
  await res.text();

  // And an https issuer's start says what `verity config check` would, as `verity serve` does.
  expect({
    localhostWebhookAccepted: status === 201,
    riskySettingsLogged: out.includes('"msg":"risky setting"'),
  }).toEqual({ localhostWebhookAccepted: false, riskySettingsLogged: true });
});
