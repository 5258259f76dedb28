import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test';
import { createHash } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { importPersons } from '../../src/persons/import.ts';
import { createTestApp, type TestApp } from '../helpers/apps.ts';
import { launchChromium } from '../helpers/chromium.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { jsonl, record } from '../persons/fixtures.ts';
import { startRelyingParty, watchConsole } from './relying-party.ts';

setDefaultTimeout(60_000);

/**
 * The account page in a real browser: a person who allowed an application sees it with the purpose
 * and scopes in plain words, switches document sharing (the application's document list follows),
 * revokes one consent and disconnects the application — each cutting off an access token that has
 * not reached its expiry, on the application's very next request.
 */

let server: TestServer;
let rp: ReturnType<typeof startRelyingParty>;
let browser: Browser;
let client: TestApp;
let base: string;
const SCOPES = 'openid profile email identity_documents document_type';

beforeAll(async () => {
  server = await startTestServer({ extra: '[rate_limits.oauth]\nrequests = 1000' });
  base = server.ctx.config.server.base_url;
  rp = startRelyingParty();
  client = await createTestApp(server.ctx, {
    type: 'confidential',
    redirectUris: [rp.callbackUrl],
    scopes: SCOPES,
    name: 'Acme Shop',
    subscribed: true,
  });
  server.ctx.db.sql
    .prepare('UPDATE application_environments SET document_types = ?, document_countries = ? WHERE id = ?')
    .run('["passport","id_card"]', '["DE","FR"]', client.environmentId);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await rp?.stop();
  await server?.stop();
});

/** The whole hosted flow in the browser, then the code exchanged by the application's backend. */
async function connect(page: Page, purpose: string, persona = 'Ada Sandbox'): Promise<string> {
  const verifier = `v${crypto.randomUUID()}${crypto.randomUUID()}`;
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: rp.callbackUrl,
    scope: SCOPES,
    state: crypto.randomUUID(),
    nonce: crypto.randomUUID(),
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    purpose,
  });
  const arrived = rp.nextCallback();
  await page.goto(`${base}/v1/oauth/authorize?${q}`);
  // A person already signed in in this browser goes straight to the face step.
  if (await page.getByRole('button', { name: persona, exact: true }).isVisible())
    await page.getByRole('button', { name: persona, exact: true }).click();
  await page.getByRole('button', { name: 'Pass face check' }).click();
  await page.getByRole('button', { name: 'Allow' }).click();
  const { code } = await arrived;
  const res = await fetch(`${base}/v1/oauth/token`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Authorization: `Basic ${btoa(`${client.clientId}:${client.clientSecret}`)}`,
    },
    body: JSON.stringify({
      grant_type: 'authorization_code',
      code,
      redirect_uri: rp.callbackUrl,
      client_id: client.clientId,
      code_verifier: verifier,
    }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

const read = (token: string, path = '/v1/userinfo') =>
  fetch(`${base}${path}`, { headers: { Authorization: `Bearer ${token}` } });

async function documentsOf(token: string): Promise<string[]> {
  const res = await read(token, '/v1/userinfo/identity-documents');
  expect(res.status).toBe(200);
  const body = (await res.json()) as { data: { documents: { displayName: string }[] } };
  return body.data.documents.map((d) => d.displayName);
}

async function expectCutOff(token: string) {
  for (const path of ['/v1/userinfo', '/v1/userinfo/identity-documents']) {
    const res = await read(token, path);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('invalid_token');
  }
}

let context: BrowserContext;

test('the account page lists the connection; sharing switches change what the application sees', async () => {
  context = await browser.newContext();
  const page = await context.newPage();
  const token = await connect(page, 'Verify your age at checkout');
  // document_type without document_issuing_country: the type's label, not "German passport".
  expect(await documentsOf(token)).toEqual(['Passport']);
  const problems = watchConsole(page);

  await page.goto(`${base}/identity/account`);
  await page.getByRole('heading', { name: 'Your account' }).waitFor();
  await page.getByText('Signed in as Ada Sandbox').waitFor();
  const apps = page.getByRole('list', { name: 'Connected applications' });
  await apps.getByRole('heading', { name: 'Acme Shop (Sandbox)' }).waitFor();
  await apps.getByText('Verify your age at checkout').waitFor();
  // Scopes in plain words, from the message catalogue.
  await apps.getByText('The identity documents you choose to share').waitFor();
  await apps.getByText('Your main email address').waitFor();
  expect(await apps.getByText('identity_documents', { exact: true }).count()).toBe(0);
  await apps.locator('time').first().waitFor();
  await apps.getByText('Last used').waitFor();

  const share = page.getByRole('switch', { name: 'Share German passport' });
  expect(await share.getAttribute('aria-checked')).toBe('true');
  await share.click();
  await page.getByRole('status').getByText('Document sharing updated.').waitFor();
  expect(await page.getByRole('switch', { name: 'Share German passport' }).getAttribute('aria-checked')).toBe(
    'false',
  );
  expect(await documentsOf(token)).toEqual([]);
  // The document claim follows the switch too: nothing shareable, no document.
  await page.getByRole('switch', { name: 'Share German passport' }).click();
  await page.getByRole('status').waitFor();
  expect(await page.getByRole('switch', { name: 'Share German passport' }).getAttribute('aria-checked')).toBe(
    'true',
  );
  expect(await documentsOf(token)).toEqual(['Passport']);
  expect(problems).toEqual([]);
});

test('Revoke ends that consent: its unexpired token is refused on the next request', async () => {
  const page = await context.newPage();
  const token = await connect(page, 'Revocable purpose');
  expect((await read(token)).status).toBe(200);

  await page.goto(`${base}/identity/account`);
  await page.getByRole('button', { name: 'Revoke Acme Shop: Revocable purpose' }).click();
  await page.getByRole('status').getByText('Consent revoked.', { exact: false }).waitFor();
  expect(await page.getByText('Revocable purpose').count()).toBe(0);
  await expectCutOff(token);
  // The other consent of the same application is untouched.
  await page.getByText('Verify your age at checkout').waitFor();

  const events = server.ctx.db.sql
    .prepare<{ body: string }>("SELECT body FROM webhook_events WHERE type = 'consent.revoked'")
    .all()
    .map((r) => JSON.parse(r.body).data);
  expect(events).toEqual([
    expect.objectContaining({ purpose: 'Revocable purpose', reason: 'revoked_by_person' }),
  ]);
});

test('Disconnect ends every consent given to the application', async () => {
  const page = await context.newPage();
  const one = await connect(page, 'Purpose one');
  const two = await connect(page, 'Purpose two');
  expect((await read(one)).status).toBe(200);
  expect((await read(two)).status).toBe(200);

  await page.goto(`${base}/identity/account`);
  await page.getByRole('button', { name: 'Disconnect Acme Shop' }).click();
  await page.getByRole('status').getByText('Application disconnected.', { exact: false }).waitFor();
  await page.getByText('You have not allowed any application to use your information.').waitFor();
  await expectCutOff(one);
  await expectCutOff(two);
  const reasons = server.ctx.db.sql
    .prepare<{ body: string }>("SELECT body FROM webhook_events WHERE type = 'consent.revoked'")
    .all()
    .map((r) => JSON.parse(r.body).data.reason);
  // Purpose one, purpose two and the first consent, all by the disconnection.
  expect(reasons.filter((r: string) => r === 'disconnected')).toHaveLength(3);
  await context.close();
});

test('sign-in on the account page: a persona in sandbox, email and password for a production person', async () => {
  await importPersons(server.ctx, jsonl(record({ password: 'Maria-Passw0rd-Secret' })));
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  const problems = watchConsole(page);
  await page.goto(`${base}/identity/account`);
  await page.getByRole('heading', { name: 'Sign in to your account' }).waitFor();
  await page.getByLabel('Email').fill('maria@example.com');
  await page.getByLabel('Password').fill('wrong password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('alert').getByText('The email or password is not correct.').waitFor();
  await page.getByLabel('Password').fill('Maria-Passw0rd-Secret');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByText('Signed in as Maria Schmidt').waitFor();
  await page.getByRole('switch', { name: /^Share / }).waitFor();
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in to your account' }).waitFor();

  await page.getByRole('button', { name: 'Ben Sandbox', exact: true }).click();
  await page.getByText('Signed in as Ben Sandbox').waitFor();
  await page.getByRole('switch', { name: 'Share French identity card' }).waitFor();
  await page.getByRole('switch', { name: 'Share French passport' }).waitFor();
  // The refused sign-in is answered 401, which Chromium logs; nothing else may appear.
  expect(problems.filter((p) => !p.includes('status of 401'))).toEqual([]);
  await ctx.close();
});
