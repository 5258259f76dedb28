import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test';
import type { Browser } from 'playwright-core';
import { hashPassword } from '../../src/crypto/password.ts';
import { unix } from '../../src/platform/clock.ts';
import { createTestApp, type TestApp } from '../helpers/apps.ts';
import { launchChromium } from '../helpers/chromium.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { startRelyingParty, watchConsole } from './relying-party.ts';

setDefaultTimeout(60_000);

/** Production flow in a real browser: password sign-in, the camera page (a fake camera), the http face provider. */

let server: TestServer;
let rp: ReturnType<typeof startRelyingParty>;
let browser: Browser;
let client: TestApp;
let face: ReturnType<typeof Bun.serve>;
const received: { frames: string[]; templateRef: string; challenge: { value: string; colours: string[] } }[] =
  [];

beforeAll(async () => {
  face = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      received.push((await req.json()) as never);
      return Response.json({ liveness: { passed: true, score: 0.95 }, match: { passed: true, score: 0.9 } });
    },
  });
  server = await startTestServer({
    extra: `[face]\nprovider = "http"\nhttp_url = "http://127.0.0.1:${face.port}/verify"\nhttp_token = "t"\n[rate_limits.oauth]\nrequests = 1000`,
  });
  rp = startRelyingParty();
  client = await createTestApp(server.ctx, {
    type: 'public',
    redirectUris: [rp.callbackUrl],
    scopes: 'openid profile',
    environment: 'production',
    name: 'Live Shop',
  });
  const now = unix(server.ctx.clock);
  server.ctx.db.sql
    .prepare(
      `INSERT INTO persons (id, external_id, environment, name, password_hash, assurance_level, identity_verified,
         face_template_ref, status, created_at, updated_at)
       VALUES ('psn_lin', 'ext-lin', 'production', 'Lin Example', ?, 'high', 1, 'tpl_lin', 'active', ?, ?)`,
    )
    .run(await hashPassword('a long passphrase'), now, now);
  server.ctx.db.sql
    .prepare(
      `INSERT INTO person_emails (person_id, email, verified, "primary") VALUES ('psn_lin', 'lin@example.org', 1, 1)`,
    )
    .run();
  browser = await launchChromium({
    extraArgs: ['--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream'],
  });
});

afterAll(async () => {
  await browser?.close();
  await rp?.stop();
  await server?.stop();
  await face?.stop(true);
});

test('production: Email/Password, camera frames to the face service, consent, callback with code', async () => {
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: rp.callbackUrl,
    scope: 'openid profile',
    state: 'live-state',
    nonce: 'live-nonce',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
    login_hint: 'lin@example.org',
    purpose: 'Open an account',
  });
  const context = await browser.newContext({ permissions: ['camera'] });
  const page = await context.newPage();
  const problems = watchConsole(page);
  const lit: string[] = [];
  await page.exposeFunction('recordLit', (colour: string) => lit.push(colour));
  await page.goto(`${server.url.replace('127.0.0.1', 'localhost')}/v1/oauth/authorize?${q}`);
  expect(await page.getByLabel('Email').inputValue()).toBe('lin@example.org');
  await page.getByLabel('Password').fill('a long passphrase');
  await page.getByRole('button', { name: 'Sign in' }).click();
  const start = page.getByRole('button', { name: 'Start face check' });
  await start.waitFor();
  const shown = await page.locator('input[name="challenge"]').inputValue();
  // The colours the screen shows while the frames are taken.
  await page.evaluate(() => {
    const record = (window as unknown as { recordLit(colour: string): void }).recordLit;
    new MutationObserver(() => record(document.body.style.backgroundColor)).observe(document.body, {
      attributeFilter: ['style'],
    });
  });
  await start.click();
  await page.getByRole('button', { name: 'Allow' }).waitFor();
  expect(received).toHaveLength(1);
  expect(received[0]!.templateRef).toBe('tpl_lin');
  expect(received[0]!.frames).toHaveLength(5);
  expect(received[0]!.challenge.value).toBe(shown);
  const rgb = (hex: string) =>
    `rgb(${[1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)).join(', ')})`;
  expect(received[0]!.challenge.colours).toHaveLength(5);
  expect(lit.slice(0, 5)).toEqual(received[0]!.challenge.colours.map(rgb));
  for (const frame of received[0]!.frames) expect(frame).toStartWith('data:image/jpeg;base64,');
  const arrived = rp.nextCallback();
  await page.getByRole('button', { name: 'Allow' }).click();
  const cb = await arrived;
  expect(cb.code).toBeString();
  expect(cb.state).toBe('live-state');
  expect(problems).toEqual([]);
  await context.close();
});

test('a face page left open past its challenge’s time reloads for a fresh one instead of sending', async () => {
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: rp.callbackUrl,
    scope: 'openid profile',
    state: 'late-state',
    nonce: 'late-nonce',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
    login_hint: 'lin@example.org',
    purpose: 'Reopen an account',
  });
  const context = await browser.newContext({ permissions: ['camera'] });
  const page = await context.newPage();
  const problems = watchConsole(page);
  await page.goto(`${server.url.replace('127.0.0.1', 'localhost')}/v1/oauth/authorize?${q}`);
  await page.getByLabel('Password').fill('a long passphrase');
  await page.getByRole('button', { name: 'Sign in' }).click();
  const start = page.getByRole('button', { name: 'Start face check' });
  await start.waitFor();
  const before = received.length;
  // The person comes back to the page four minutes later: its challenge has run out.
  await page.clock.setFixedTime(Date.now() + 240_000);
  const reloaded = page.waitForEvent('load');
  await start.click();
  await reloaded;
  expect(received).toHaveLength(before);
  // The reloaded page's challenge is in time: the check goes through.
  await page.getByRole('button', { name: 'Start face check' }).click();
  await page.getByRole('button', { name: 'Allow' }).waitFor();
  expect(received).toHaveLength(before + 1);
  expect(problems).toEqual([]);
  await context.close();
});
