import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import * as oidc from 'openid-client';
import type { Browser } from 'playwright-core';
import { type Started, startWay } from '../../scripts/smoke.ts';
import { type RelyingParty, signInWithOpenIdClient, startRelyingParty } from '../e2e/relying-party.ts';
import { launchChromium } from '../helpers/chromium.ts';

setDefaultTimeout(90_000);

/**
 * The server must complete a whole flow under Node 20, not only start: the Node bundle serves, its own
 * CLI registers an application, and a standard OpenID Connect client with Chromium as the person goes
 * from authorize to a validated ID token and UserInfo.
 */

const root = join(import.meta.dir, '../..');
const dist = join(root, '.tmp', `node-flow-${crypto.randomUUID()}`);
let server: Started;
let rp: RelyingParty;
let browser: Browser;

beforeAll(async () => {
  mkdirSync(dist, { recursive: true });
  const build = Bun.spawnSync([process.execPath, 'scripts/build.ts', '--node-only', '--out', dist], {
    cwd: root,
    stdout: 'pipe',
    stderr: 'pipe',
  });
  if (build.exitCode !== 0) throw new Error(`build failed: ${build.stderr}`);
  server = await startWay('node', { dist });
  rp = startRelyingParty();
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await rp?.stop();
  await server?.dispose();
  rmSync(dist, { recursive: true, force: true });
});

test('under Node 20: CLI registration, sandbox sign-in, code exchange, ID token, UserInfo, clean stop', async () => {
  const created = server.cli(
    'apps',
    'create',
    '--name',
    'Node RP',
    '--type',
    'confidential',
    '--redirect-uri',
    rp.callbackUrl,
    '--scopes',
    'openid profile email',
    '--json',
  );
  expect(created.stderr).toBe('');
  expect(created.exitCode).toBe(0);
  const app = JSON.parse(created.stdout) as { clientId: string; clientSecret: string };
  expect(app.clientId).toStartWith('cid_test_');

  const config = await oidc.discovery(
    new URL(server.baseUrl),
    app.clientId,
    app.clientSecret,
    oidc.ClientSecretBasic(app.clientSecret),
    { execute: [oidc.allowInsecureRequests] },
  );
  const tokens = await signInWithOpenIdClient({
    browser,
    rp,
    config,
    scope: 'openid profile email',
    purpose: 'Check the Node 20 build end to end',
  });
  expect(tokens.access_token).toStartWith('at_');
  expect(tokens.expires_in).toBe(900);
  const claims = tokens.claims()!;
  expect(claims.iss).toBe(server.baseUrl);
  expect(claims.aud).toBe(app.clientId);

  const userinfo = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
  expect(userinfo.sub).toBe(claims.sub);
  expect(userinfo.email).toBeString();

  expect(await server.stop()).toBe(0);
});
