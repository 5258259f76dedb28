import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync } from 'node:fs';
import * as oidc from 'openid-client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { findDeveloperByEmail, markEmailVerified } from '../../src/developer/developer.store.ts';
import { fixedClock } from '../../src/platform/clock.ts';
import { dispatchDue } from '../../src/webhooks/dispatcher.ts';
import { verifyWebhook } from '../../src/webhooks/verify.ts';
import { launchChromium } from '../helpers/chromium.ts';
import { cli } from '../helpers/cli.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const SHOTS = 'test-results/screenshots';
const PASSWORD = 'correct horse battery staple';

let server: TestServer;
let browser: Browser;
let loopback: ReturnType<typeof Bun.serve>;
const hooks: { headers: Headers; body: string }[] = [];
let base: string;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  // Near real time: openid-client checks the ID token against the system clock.
  server = await startTestServer({
    clock: fixedClock(Date.now()),
    extra:
      '[developer]\nsignup = "open"\n[webhooks]\nallow_localhost_in_sandbox = true\n[rate_limits.oauth]\nrequests = 1000',
  });
  base = server.ctx.config.server.base_url;
  // Stands in for the relying application: its callback, its webhook receiver, and a hostile page.
  loopback = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      const url = new URL(req.url);
      if (url.pathname === '/hook') {
        hooks.push({ headers: req.headers, body: await req.text() });
        return new Response('ok');
      }
      if (url.pathname === '/evil')
        return new Response(
          `<!doctype html><form id="f" method="post" action="${url.searchParams.get('target')}"><input name="x" value="1"></form><script>document.getElementById('f').submit()</script>`,
          { headers: { 'content-type': 'text/html' } },
        );
      return new Response('callback reached', { headers: { 'content-type': 'text/plain' } });
    },
  });
  browser = await launchChromium({ popupBlocker: true });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  loopback?.stop(true);
  await server?.stop();
});

const shot = (page: Page, name: string) =>
  page.screenshot({ path: `${SHOTS}/portal-${name}.png`, fullPage: true });

async function newContext(): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  return context;
}

/** Marks an address verified, as following the emailed link does. */
const verify = (email: string) =>
  markEmailVerified(server.ctx.db, server.ctx.clock, findDeveloperByEmail(server.ctx.db, email)!.developerId);

describe('developer portal in Chromium', () => {
  test('sign up, create an app, copy its secret, sign in with it, webhooks, production review and approval', async () => {
    const context = await newContext();
    const page = await context.newPage();
    const rp = `http://127.0.0.1:${loopback.port}`;

    // Sign up.
    await page.goto(`${base}/developer/signup`);
    await page.getByLabel('Email').fill('alice@example.com');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('Confirm password').fill(PASSWORD);
    await shot(page, 'signup');
    await page.getByRole('button', { name: 'Create account' }).click();
    // Sign-up lands on the account page, which asks for the emailed link (followed in email-links tests).
    expect(await page.textContent('body')).toContain('We sent a verification link to alice@example.com');
    expect(await page.textContent('body')).toContain('Signed in as alice@example.com');
    verify('alice@example.com');
    await page.getByRole('link', { name: 'Applications', exact: true }).click();

    // A registration rule broken, shown next to its field, then a confidential sandbox application.
    await page.getByRole('link', { name: 'New application' }).click();
    await page.getByLabel('Application name').fill('Acme Shop');
    await page.getByLabel('Redirect URIs', { exact: true }).fill('http://rp.example/callback');
    await page.getByRole('button', { name: 'Create application' }).click();
    expect(await page.locator('#redirect_uris-error').textContent()).toMatch(/must use https/i);
    await shot(page, 'app-form-errors');
    await page.getByRole('link', { name: /must use https/i }).click();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('redirect_uris');
    await page.getByLabel('Redirect URIs', { exact: true }).fill(`${rp}/callback`);
    await page.getByRole('checkbox', { name: 'profile Basic', exact: true }).check();
    await page.getByRole('checkbox', { name: 'age_over_18 Sensitive', exact: true }).check();
    await page.getByRole('button', { name: 'Create application' }).click();
    const shown = (await page.locator('#client-secret').textContent())!;
    expect(shown).toStartWith('cs_test_');
    const clientId = (await page.locator('#client-id').textContent())!;
    await page.getByRole('button', { name: 'Copy: Client secret' }).click();
    await page.locator('#client-secret-status', { hasText: 'Copied' }).waitFor();
    const clientSecret = await page.evaluate(() => navigator.clipboard.readText());
    expect(clientSecret).toBe(shown);
    await shot(page, 'app-created');
    await page.getByRole('link', { name: 'Back' }).click();
    const appUrl = page.url();
    const applicationId = new URL(appUrl).pathname.split('/').pop()!;
    expect(await page.textContent('body')).not.toContain(clientSecret);
    expect(await page.locator('#client-id').textContent()).toBe(clientId);
    await shot(page, 'app');

    // A sandbox sign-in with a standard client library, using the copied credentials.
    const config = await oidc.discovery(
      new URL(base),
      clientId,
      clientSecret,
      oidc.ClientSecretBasic(clientSecret),
      {
        execute: [oidc.allowInsecureRequests],
      },
    );
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const authUrl = oidc.buildAuthorizationUrl(config, {
      redirect_uri: `${rp}/callback`,
      scope: 'openid profile age_over_18',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    const flow = await context.newPage();
    await flow.goto(authUrl.href);
    await flow.getByRole('button', { name: 'Ada Sandbox' }).click();
    await flow.getByRole('button', { name: 'Pass face check' }).click();
    await flow.getByRole('button', { name: 'Allow' }).click();
    await flow.waitForURL(`${rp}/callback**`);
    const tokens = await oidc.authorizationCodeGrant(config, new URL(flow.url()), {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
    });
    expect(tokens.claims()!.sub).toBeTruthy();
    const info = await oidc.fetchUserInfo(config, tokens.access_token, tokens.claims()!.sub);
    expect(info.age_over_18).toBe(true);
    await flow.close();

    // A webhook endpoint on a loopback receiver, a test event, the history, a secret rotation.
    await page.getByRole('link', { name: 'Webhooks' }).first().click();
    await page.getByRole('link', { name: 'Add endpoint' }).click();
    await page.getByLabel('Endpoint URL').fill(`http://localhost:${loopback.port}/hook`);
    await shot(page, 'webhook-form');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const whsec = (await page.locator('#webhook-secret').textContent())!;
    expect(whsec).toStartWith('whsec_');
    await page.getByRole('link', { name: 'Back' }).click();
    await page.getByRole('button', { name: 'Send test event' }).click();
    const eventId = new URL(page.url()).searchParams.get('tested')!;
    await shot(page, 'webhooks');
    await dispatchDue(server.ctx);
    expect(hooks).toHaveLength(1);
    expect(JSON.parse(hooks[0]!.body).id).toBe(eventId);
    const check = await verifyWebhook({
      rawBody: hooks[0]!.body,
      signatureHeader: hooks[0]!.headers.get('service-signature'),
      secrets: [whsec],
      now: server.clock.now(),
    });
    expect(check.ok).toBe(true);
    await page.getByRole('link', { name: 'Delivery history' }).first().click();
    const row = page.getByRole('row', { name: new RegExp(eventId) });
    expect(await row.textContent()).toContain('Delivered');
    expect(await row.textContent()).toContain('200');
    await shot(page, 'delivery-history');
    await page.getByRole('link', { name: 'Webhooks', exact: true }).click();
    await page.getByRole('link', { name: 'Rotate secret' }).click();
    await page.getByLabel('1 hour').check();
    await shot(page, 'webhook-rotate');
    await page.getByRole('button', { name: 'Yes, rotate it' }).click();
    const rotated = (await page.locator('#webhook-secret').textContent())!;
    expect(rotated).toStartWith('whsec_');
    expect(rotated).not.toBe(whsec);
    expect(await page.textContent('body')).toContain('The previous secret stays valid until');

    // Production review, approved by the operator with the CLI.
    await page.goto(appUrl);
    await page.getByRole('link', { name: 'Request production review' }).click();
    await page.getByLabel('Justification', { exact: true }).fill('Age checks for alcohol deliveries.');
    await shot(page, 'review-request');
    await page.getByRole('button', { name: 'Submit for review' }).click();
    expect(await page.locator('#review-status').textContent()).toContain('Pending');
    const approved = await cli(
      'apps',
      'review',
      'approve',
      applicationId,
      '--config',
      server.configPath,
      '--json',
    );
    expect(approved.code).toBe(0);
    expect(approved.json.clientId).toStartWith('cid_live_');
    await page.reload();
    expect(await page.locator('#review-status').textContent()).toContain('Approved');
    await page.getByRole('link', { name: 'Production credentials' }).click();
    expect(await page.locator('#client-id').textContent()).toBe(approved.json.clientId);
    await shot(page, 'production');

    // API keys.
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByLabel(/^Label/).fill('CI');
    await page.getByRole('button', { name: 'Create key' }).click();
    expect(await page.locator('#api-key').textContent()).toStartWith('dk_test_');
    await shot(page, 'api-keys');

    // Another developer, invited by the operator, sees none of it.
    const invite = await cli(
      'developers',
      'invite',
      '--email',
      'bob@example.com',
      '--config',
      server.configPath,
      '--json',
    );
    expect(invite.code).toBe(0);
    const bobContext = await newContext();
    const bob = await bobContext.newPage();
    await bob.goto(invite.json.url);
    await bob.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await bob.getByLabel('Confirm password').fill(PASSWORD);
    await shot(bob, 'invitation');
    await bob.getByRole('button', { name: 'Accept invitation' }).click();
    expect(await bob.textContent('body')).toContain('You have no applications yet.');
    for (const path of [
      '',
      '?env=production',
      '/edit',
      '/review',
      '/delete',
      '/sandbox/webhooks',
      '/sandbox/webhooks/history',
    ]) {
      const res = await bob.goto(`${appUrl}${path}`);
      expect({ path, status: res!.status() }).toEqual({ path, status: 404 });
      expect(await bob.textContent('body')).not.toContain('Acme Shop');
    }
    await shot(bob, 'not-found');

    // A cross-origin form post with Alice's browser is refused, and nothing is deleted.
    const evil = await context.newPage();
    const refused = evil.waitForResponse((r) => r.url().endsWith(`/apps/${applicationId}/delete`));
    await evil.goto(`${rp}/evil?target=${encodeURIComponent(`${appUrl}/delete`)}`);
    const refusal = await refused;
    expect(refusal.status()).toBe(403);
    expect(await refusal.headerValue('set-cookie')).toBeNull();
    await page.goto(appUrl);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Acme Shop');
    await bobContext.close();
    await context.close();
  }, 180_000);

  test('reloading "Application created" creates nothing and does not show the secret again', async () => {
    const context = await newContext();
    const page = await context.newPage();
    await page.goto(`${base}/developer/signup`);
    await page.getByLabel('Email').fill('carol@example.com');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('Confirm password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('link', { name: 'Applications', exact: true }).click();
    await page.getByRole('link', { name: 'New application' }).click();
    await page.getByLabel('Application name').fill('Carol Reloads');
    await page.getByLabel('Redirect URIs', { exact: true }).fill('https://rp.example/callback');
    await page.getByRole('button', { name: 'Create application' }).click();
    const secret = (await page.locator('#client-secret').textContent())!;
    expect(secret).toStartWith('cs_test_');

    for (let i = 0; i < 2; i++) {
      await page.reload();
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Already shown');
      expect(await page.content()).not.toContain(secret);
    }
    await shot(page, 'already-shown');
    const owned = server.ctx.db.sql
      .prepare<{ n: number }>("SELECT count(*) AS n FROM applications WHERE name = 'Carol Reloads'")
      .get()!;
    expect(owned.n).toBe(1);
    await page.getByRole('link', { name: 'Back' }).click();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Carol Reloads');
    await context.close();
  }, 60_000);

  test('narrow screens: the pages fit a 360 px viewport without horizontal scrolling', async () => {
    const context = await browser.newContext({ viewport: { width: 360, height: 740 } });
    const page = await context.newPage();
    await page.goto(`${base}/developer/signin`);
    await page.getByLabel('Email').fill('alice@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Acme Shop' }).click();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await shot(page, 'app-mobile');
    await context.close();
  }, 60_000);
});
