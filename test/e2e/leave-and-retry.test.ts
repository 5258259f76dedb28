import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test';
import { createHash } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { createTestApp, type TestApp } from '../helpers/apps.ts';
import { launchChromium } from '../helpers/chromium.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { startRelyingParty, watchConsole } from './relying-party.ts';

setDefaultTimeout(30_000);

/** Leaving the hosted flow at each step, retrying the face check, and the authorize error page. */

let server: TestServer;
let rp: ReturnType<typeof startRelyingParty>;
let browser: Browser;
let client: TestApp;

beforeAll(async () => {
  server = await startTestServer({ extra: '[rate_limits.oauth]\nrequests = 1000' });
  rp = startRelyingParty();
  client = await createTestApp(server.ctx, {
    type: 'confidential',
    redirectUris: [rp.callbackUrl],
    scopes: 'openid profile',
    name: 'Acme Shop',
  });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await rp?.stop();
  await server?.stop();
});

function authorizeUrl(extra: Record<string, string> = {}) {
  const verifier = crypto.randomUUID() + crypto.randomUUID();
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: rp.callbackUrl,
    scope: 'openid profile',
    state: 'st-leave',
    nonce: 'n-leave',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    purpose: 'Open an account',
    ...extra,
  });
  return `${server.url.replace('127.0.0.1', 'localhost')}/v1/oauth/authorize?${q}`;
}

/** A fresh browser at the persona picker of a new request. */
async function start(): Promise<{ page: Page; problems: string[]; done: () => Promise<void> }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const problems = watchConsole(page);
  await page.goto(authorizeUrl());
  await page.getByRole('heading', { name: 'Choose a test persona' }).waitFor();
  return { page, problems, done: () => context.close() };
}

/** Cancel is a button named after the application; it ends at the callback with access_denied. */
async function cancel(page: Page, problems: string[]) {
  const arrived = rp.nextCallback();
  await page.getByRole('button', { name: 'Cancel and return to Acme Shop' }).click();
  const q = await arrived;
  expect(q).toEqual({
    error: 'access_denied',
    error_description: 'The person cancelled the request.',
    state: 'st-leave',
    iss: server.ctx.config.server.base_url,
  });
  await page.waitForURL(`${rp.callbackUrl}?**`);
  expect(problems).toEqual([]);
}

test('Cancel at sign-in ends at the callback with access_denied, state and iss', async () => {
  const { page, problems, done } = await start();
  await cancel(page, problems);
  await done();
});

test('Cancel at the face step', async () => {
  const { page, problems, done } = await start();
  await page.getByRole('button', { name: 'Ada Sandbox', exact: true }).click();
  await page.getByRole('button', { name: 'Pass face check' }).waitFor();
  await cancel(page, problems);
  await done();
});

test('Cancel at consent', async () => {
  const { page, problems, done } = await start();
  await page.getByRole('button', { name: 'Ada Sandbox', exact: true }).click();
  await page.getByRole('button', { name: 'Pass face check' }).click();
  await page.getByRole('button', { name: 'Allow' }).waitFor();
  await cancel(page, problems);
  await done();
});

test('a failed face check can be retried: it says why and how many tries are left, then a pass goes on', async () => {
  const { page, problems, done } = await start();
  await page.getByRole('button', { name: 'Ada Sandbox', exact: true }).click();
  await page.getByRole('button', { name: 'Fail face match' }).click();
  const alert = page.getByRole('alert');
  expect(await alert.textContent()).toBe(
    'The face check did not pass: your face did not match your account. Try again: 2 attempts left.',
  );
  await page.getByRole('button', { name: 'Pass face check' }).click();
  const arrived = rp.nextCallback();
  await page.getByRole('button', { name: 'Allow' }).click();
  const q = await arrived;
  expect(q.code).toBeString();
  expect(q.state).toBe('st-leave');
  expect(problems).toEqual([]);
  await done();
});

test('three failed face checks end the request at the callback with access_denied', async () => {
  const { page, problems, done } = await start();
  // Eve's face never matches, whatever is clicked.
  await page.getByRole('button', { name: 'Eve Sandbox', exact: true }).click();
  await page.getByRole('button', { name: 'Pass face check' }).click();
  await page.getByText('2 attempts left').waitFor();
  await page.getByRole('button', { name: 'Pass face check' }).click();
  await page.getByText('1 attempt left').waitFor();
  const arrived = rp.nextCallback();
  await page.getByRole('button', { name: 'Pass face check' }).click();
  const q = await arrived;
  expect(q.error).toBe('access_denied');
  expect(q.error_description).toContain('did not match');
  expect(q.state).toBe('st-leave');
  expect(q.iss).toBe(server.ctx.config.server.base_url);
  expect(problems).toEqual([]);
  await done();
});

test("the authorize error page is shown in the identity experience's layout", async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const problems = watchConsole(page);
  const res = await page.goto(authorizeUrl({ client_id: 'cid_test_unknown' }));
  expect(res?.status()).toBe(400);
  await page.getByRole('heading', { name: 'This sign-in request cannot continue' }).waitFor();
  expect(await page.locator('header .brand').textContent()).toBe('Verity');
  // The identity experience's stylesheet applies (under the page's CSP): the card is drawn.
  const card = await page.locator('main .card').evaluate((el) => getComputedStyle(el).borderTopLeftRadius);
  expect(card).toBe('12px');
  expect(await page.title()).toBe('Sign-in request not accepted · Verity');
  expect(page.url()).toStartWith(server.url.replace('127.0.0.1', 'localhost'));
  // The 400 itself is reported; nothing is refused by the page's CSP.
  expect(problems).toEqual([
    'Failed to load resource: the server responded with a status of 400 (Bad Request)',
  ]);
  await context.close();
});
