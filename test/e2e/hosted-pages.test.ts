import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test';
import { createHash } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { createTestApp, type TestApp } from '../helpers/apps.ts';
import { launchChromium } from '../helpers/chromium.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { completeSandboxFlow, startRelyingParty, watchConsole } from './relying-party.ts';

setDefaultTimeout(30_000);

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
    scopes: 'openid profile email age_over_18',
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
  const verifier = 'v'.repeat(20) + crypto.randomUUID() + crypto.randomUUID();
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: rp.callbackUrl,
    scope: 'openid profile email age_over_18',
    state: 'st-e2e',
    nonce: 'n-e2e',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    purpose: 'Confirm you are an adult',
    ...extra,
  });
  return `${server.url.replace('127.0.0.1', 'localhost')}/v1/oauth/authorize?${q}`;
}

test('page display: persona → face → consent → the relying party receives code and state', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const problems = watchConsole(page);
  await page.goto(authorizeUrl());
  await page.getByRole('heading', { name: 'Choose a test persona' }).waitFor();
  await page.getByLabel('Forced outcome').waitFor();
  await page.getByRole('button', { name: 'Ada Sandbox', exact: true }).click();
  await page.getByRole('button', { name: 'Pass face check' }).click();
  await page.getByText('Confirm you are an adult').waitFor();
  await page.getByText('Whether you are over 18').waitFor();
  await page.getByRole('heading', { name: 'Acme Shop wants to use your information' }).waitFor();
  const arrived = rp.nextCallback();
  await page.getByRole('button', { name: 'Allow' }).click();
  const q = await arrived;
  expect(q.code).toBeString();
  expect(q.state).toBe('st-e2e');
  expect(q.iss).toBe(server.ctx.config.server.base_url);
  await page.waitForURL(`${rp.callbackUrl}?**`);
  expect(problems).toEqual([]);
  // The session cookie is the __Host- one, HttpOnly and Secure even on plain-HTTP localhost.
  const cookie = (await context.cookies()).find((c) => c.name === '__Host-verity_session');
  expect(cookie).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Lax', path: '/' });
  await context.close();
});

test('popup display: compact layout, and the popup ends on the callback', async () => {
  const context = await browser.newContext();
  const opener = await context.newPage();
  await opener.goto(`${rp.origin}/start?to=${encodeURIComponent(authorizeUrl({ display: 'popup' }))}`);
  const [popup] = await Promise.all([opener.waitForEvent('popup'), opener.getByRole('button').click()]);
  const problems = watchConsole(popup);
  await popup.getByRole('button', { name: 'Ben Sandbox', exact: true }).waitFor();
  expect(await popup.evaluate(() => document.body.className)).toBe('popup');
  const arrived = rp.nextCallback();
  await completeSandboxFlow(popup, 'Ben Sandbox');
  const q = await arrived;
  expect(q.code).toBeString();
  expect(q.state).toBe('st-e2e');
  // The popup still knows its opener, so the callback page can post its message.
  await popup.waitForURL(`${rp.callbackUrl}?**`);
  expect(await popup.evaluate(() => window.opener !== null)).toBe(true);
  expect(problems).toEqual([]);
  await context.close();
});

test('Deny ends at the callback with access_denied; keyboard alone can reach every control', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(authorizeUrl());
  // Keyboard: the skip link comes first, then the form controls.
  await page.keyboard.press('Tab');
  expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
  await page.getByRole('button', { name: 'Cleo Sandbox', exact: true }).focus();
  await page.keyboard.press('Enter');
  await page.getByRole('button', { name: 'Pass face check' }).click();
  const arrived = rp.nextCallback();
  await page.getByRole('button', { name: 'Deny' }).click();
  const q = await arrived;
  expect(q.error).toBe('access_denied');
  await context.close();
});

test('responsive: the pages fit a 320 px wide screen without horizontal scrolling', async () => {
  const context = await browser.newContext({ viewport: { width: 320, height: 640 } });
  const page = await context.newPage();
  await page.goto(authorizeUrl());
  await page.getByRole('button', { name: 'Ada Sandbox', exact: true }).waitFor();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);
  await context.close();
});
