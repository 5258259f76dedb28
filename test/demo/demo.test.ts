import { Database } from 'bun:sqlite';
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { dirname, join, resolve } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { registrationPath } from '../../src/demo/registration.ts';
import { type RunningDemo, startDemo } from '../../src/demo/start.ts';
import { fixedClock } from '../../src/platform/clock.ts';
import { dispatchDue } from '../../src/webhooks/dispatcher.ts';
import { completeSandboxFlow } from '../e2e/relying-party.ts';
import { launchChromium } from '../helpers/chromium.ts';
import { freePort, startTestServer, type TestServer } from '../helpers/server.ts';

setDefaultTimeout(60_000);

/**
 * The demo relying party against a real Verity server on a real port, driven in headless Chromium
 * with the popup blocker on: its first run, the popup and redirect sign-ins, the callback refusing
 * replays and forgeries, the page of claims, verified webhooks, and revoking consent from its link.
 */

let server: TestServer;
let demo: RunningDemo;
let demoPort: number;
let browser: Browser;

beforeAll(async () => {
  // The SDK validates ID tokens against the server's clock, which starts now.
  server = await startTestServer({
    clock: fixedClock(Date.now()),
    extra: '[rate_limits.oauth]\nrequests = 1000\n[webhooks]\nallow_localhost_in_sandbox = true',
  });
  demoPort = await freePort();
  demo = await startDemo(server.ctx, { port: demoPort });
  browser = await launchChromium({ popupBlocker: true });
});
afterAll(async () => {
  await browser?.close();
  await demo?.stop();
  await server?.stop();
});

const count = (sql: string, ...p: unknown[]) =>
  (server.ctx.db.sql.prepare<{ n: number }>(sql).get(...p) as { n: number }).n;

async function withPage(fn: (page: Page, context: BrowserContext) => Promise<void>): Promise<void> {
  const context = await browser.newContext();
  try {
    await fn(await context.newPage(), context);
  } finally {
    await context.close();
  }
}

/**
 * Waits until the page's text contains `text`, across the reload the completion message causes: a
 * page.waitForFunction started in the old document can miss the new one, so poll from here.
 */
async function bodyContains(page: Page, text: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const body = await page.textContent('body').catch(() => null);
    if (body?.includes(text)) return;
    if (Date.now() > deadline)
      throw new Error(`page never showed "${text}"; it shows: ${body?.slice(0, 300)}`);
    await Bun.sleep(50);
  }
}

describe('first run', () => {
  test('registers the sandbox application and its webhook endpoint once, and reuses them on restart', async () => {
    const first = demo.registration;
    expect(first.clientId).toStartWith('cid_test_');
    expect(first.clientSecret).toStartWith('cs_test_');
    expect(first.redirectUri).toBe(`http://localhost:${demoPort}/callback`);
    expect(first.webhook?.secret).toStartWith('whsec_');
    expect(Bun.file(registrationPath(server.ctx)).size).toBeGreaterThan(0);
    const { statSync } = await import('node:fs');
    expect(statSync(registrationPath(server.ctx)).mode & 0o777).toBe(0o600);

    await demo.stop();
    demo = await startDemo(server.ctx, { port: demoPort });
    expect(demo.registration).toEqual(first);
    expect(count("SELECT count(*) AS n FROM applications WHERE name = 'Verity demo'")).toBe(1);
    expect(
      count('SELECT count(*) AS n FROM webhook_endpoints WHERE application_id = ?', first.applicationId),
    ).toBe(1);
  });
});

describe('sign-in', () => {
  test('popup: opened in the click, completion message accepted, opener signed in with claims, UserInfo and documents', async () => {
    await withPage(async (page) => {
      await page.goto(demo.url);
      const popupPromise = page.waitForEvent('popup');
      await page.getByRole('button', { name: 'Sign in (popup)' }).click();
      const popup = await popupPromise;
      await popup.waitForURL(/display=popup|\/identity\//);
      const consoleLines: string[] = [];
      for (const p of [page, popup]) p.on('console', (m) => consoleLines.push(`${m.type()}: ${m.text()}`));
      await completeSandboxFlow(popup);
      // The callback page posts the completion message and closes; the opener reloads signed in.
      await bodyContains(page, 'ID token claims').catch(async (e) => {
        const where = popup.isClosed() ? 'closed' : `${popup.url()}\n${await popup.textContent('body')}`;
        throw new Error(`${(e as Error).message}\npopup: ${where}\nconsole: ${consoleLines.join('\n')}`);
      });
      expect(popup.isClosed()).toBe(true);
      const text = (await page.textContent('body'))!;
      expect(text).toContain('Signed in as');
      expect(text).toContain('"nonce"');
      expect(text).toContain('"email"');
      expect(await page.locator('#documents tr').count()).toBeGreaterThan(1);
      expect(text).toContain('maskedDocumentNumber');

      // The session cookie is HTTP-only; no token or secret ever reached the page's script.
      const cookies = await page.context().cookies(demo.url);
      expect(cookies.find((c) => c.name === 'verity_demo_session')?.httpOnly).toBe(true);
      expect(await page.evaluate(() => document.cookie)).toBe('');
    });
  });

  test('popup blocked: falls back to a full-page redirect (display=page) and completes', async () => {
    await withPage(async (page, context) => {
      // A click the page makes by itself once loaded, without the person's user activation:
      // Chromium's popup blocker (left on in these tests) refuses window.open.
      await context.addInitScript(() => {
        if (location.pathname === '/')
          addEventListener('load', () => setTimeout(() => document.getElementById('popup')?.click(), 0));
      });
      let popups = 0;
      page.on('popup', () => popups++);
      await page.goto(demo.url);
      await page.waitForURL(/\/identity\/|\/v1\/oauth\/authorize/);
      expect(popups).toBe(0);
      // Each test signs in a different persona, so each sees the consent screen.
      await completeSandboxFlow(page, 'Ben Sandbox');
      await page.waitForURL(`${demo.url}/`);
      expect(await page.textContent('body')).toContain('ID token claims');
    });
  });

  test('redirect button: full-page flow; the callback cannot be replayed and a forged state is refused', async () => {
    await withPage(async (page) => {
      let callback: string | undefined;
      page.on('request', (r) => {
        if (r.url().startsWith(`${demo.url}/callback`)) callback = r.url();
      });
      await page.goto(demo.url);
      await page.getByRole('button', { name: 'Sign in (redirect)' }).click();
      await completeSandboxFlow(page, 'Dan Sandbox');
      await page.waitForURL(`${demo.url}/`);
      expect(await page.textContent('body')).toContain('ID token claims');
      expect(new URL(callback!).searchParams.get('display')).toBeNull();

      const replay = await page.goto(callback!);
      expect(replay!.status()).toBe(400);
      // The callback's URL carries the code, so its page sends no Referer anywhere.
      expect(replay!.headers()['referrer-policy']).toBe('no-referrer');
      expect(await page.textContent('#error-code')).toBe('transaction_missing');

      // A fresh sign-in, then a callback carrying another state for this browser.
      await page.goto(demo.url);
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('button', { name: 'Sign in (redirect)' }).waitFor();
      const started = await page.evaluate(async () => {
        const r = await fetch('/auth/transaction', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ display: 'page' }),
        });
        return r.json();
      });
      expect(Object.keys(started).sort()).toEqual(['authorizationUrl', 'transactionId']);
      const forged = await page.goto(`${demo.url}/callback?code=x&state=${'A'.repeat(43)}`);
      expect(forged!.status()).toBe(400);
      expect(await page.textContent('#error-code')).toBe('state_mismatch');
    });
  });

  test('the transaction endpoint refuses cross-origin requests', async () => {
    const res = await fetch(`${demo.url}/auth/transaction`, {
      method: 'POST',
      headers: { origin: 'http://evil.example', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(403);
  });
});

describe('webhooks', () => {
  test('deliveries are verified, stored once per event id, and listed', async () => {
    await dispatchDue(server.ctx);
    await withPage(async (page) => {
      await page.goto(`${demo.url}/webhooks`);
      const types = await page.locator('#webhooks .event-type').allTextContents();
      expect(types).toContain('consent.granted');
    });
    // A forged delivery is refused.
    const body = JSON.stringify({ id: 'evt-forged', type: 'consent.revoked', createdAt: '', data: {} });
    const res = await fetch(`${demo.url}/webhooks/receive`, {
      method: 'POST',
      headers: {
        'service-signature': `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}`,
        'service-event-id': 'evt-forged',
      },
      body,
    });
    expect(res.status).toBe(400);
  });
});

describe('consent revocation', () => {
  /** The access tokens of the demo's sessions for `sub`, read from the demo's own database. */
  function demoTokens(sub: string): string[] {
    const db = new Database(join(dirname(resolve(server.ctx.config.database.path)), 'demo.db'));
    try {
      return db
        .query<{ access_token: string }, [string]>('SELECT access_token FROM demo_sessions WHERE sub = ?')
        .all(sub)
        .map((r) => r.access_token);
    } finally {
      db.close();
    }
  }
  const demoToken = (sub: string): string | undefined => demoTokens(sub)[0];

  async function expectRefused(token: string) {
    for (const path of ['/v1/userinfo', '/v1/userinfo/identity-documents']) {
      const res = await fetch(`${server.ctx.config.server.base_url}${path}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    }
  }

  test("signing out revokes the session's access token at Verity, as integration.md advises", async () => {
    await withPage(async (page) => {
      await page.goto(demo.url);
      await page.getByRole('button', { name: 'Sign in (redirect)' }).click();
      await completeSandboxFlow(page, 'Ben Sandbox');
      await page.waitForURL(`${demo.url}/`);
      await bodyContains(page, 'UserInfo claims');
      // Other tests' sessions may be Ben's too: this session's token is the one its sign-out removes.
      const sub = (await page.locator('main code').first().textContent())!;
      const before = demoTokens(sub);
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('button', { name: 'Sign in (redirect)' }).waitFor();
      const ended = before.filter((t) => !demoTokens(sub).includes(t));
      expect(ended).toHaveLength(1);
      expect(ended[0]).toStartWith('at_');
      await expectRefused(ended[0]!);
    });
  });

  test('the revoke link: consent revoked on the account page, the demo shows the refusal and signs out, the next sign-in asks for consent', async () => {
    await withPage(async (page, context) => {
      await page.goto(demo.url);
      await page.getByRole('button', { name: 'Sign in (redirect)' }).click();
      await completeSandboxFlow(page, 'Cleo Sandbox');
      await page.waitForURL(`${demo.url}/`);
      await bodyContains(page, 'UserInfo claims');
      expect(await page.locator('#userinfo-error').count()).toBe(0);

      // While the consent stands, signing in again skips the consent screen (Verity remembers the
      // person in this browser, so only the face check is asked).
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('button', { name: 'Sign in (redirect)' }).click();
      await page.getByRole('button', { name: 'Pass face check' }).click();
      await page.waitForURL(`${demo.url}/`);
      await bodyContains(page, 'UserInfo claims');
      const sub = (await page.locator('main code').first().textContent())!;
      const token = demoToken(sub);
      expect(token).toStartWith('at_');

      // The link opens the account page in a new tab, where the person is still signed in.
      const [account] = await Promise.all([
        context.waitForEvent('page'),
        page.getByRole('link', { name: 'Revoke consent on your account page' }).click(),
      ]);
      await account.getByText('Signed in as Cleo Sandbox').waitFor();
      const apps = account.getByRole('list', { name: 'Connected applications' });
      await apps.getByRole('heading', { name: 'Verity demo (Sandbox)' }).waitFor();
      await account
        .getByRole('button', {
          name: 'Revoke Verity demo: Show you what a relying party receives from Verity (demo)',
        })
        .click();
      await account.getByRole('status').getByText('Consent revoked.', { exact: false }).waitFor();
      await account.getByText('You have not allowed any application to use your information.').waitFor();
      await account.close();

      // Verity refuses the unexpired token at once, for UserInfo and documents alike.
      await expectRefused(token!);

      // Back in the demo tab, as the page says: reload. The demo's next call is refused, and it says so.
      await page.reload();
      const ended = page.getByRole('alert');
      await ended.getByText('Verity no longer gives this application access').waitFor();
      expect(await ended.textContent()).toContain('invalid_token');
      expect(await ended.textContent()).toContain('consent was revoked');
      expect(await page.textContent('body')).not.toContain('ID token claims');
      await page.getByRole('button', { name: 'Sign in (redirect)' }).waitFor();
      // The demo ended its session: cookie and stored token are gone, and a second reload is plainly signed out.
      expect((await context.cookies(demo.url)).some((c) => c.name === 'verity_demo_session')).toBe(false);
      expect(demoToken(sub)).toBeUndefined();
      await page.reload();
      expect(await page.getByRole('alert').count()).toBe(0);
      await page.getByRole('button', { name: 'Sign in (redirect)' }).waitFor();

      // The consent.revoked event reaches the demo's webhook receiver.
      await dispatchDue(server.ctx);
      await page.goto(`${demo.url}/webhooks`);
      expect(await page.locator('#webhooks .event-type').allTextContents()).toContain('consent.revoked');

      // Signing in again asks for consent again; allowing it gives the demo its claims back.
      await page.goto(demo.url);
      await page.getByRole('button', { name: 'Sign in (redirect)' }).click();
      await page.getByRole('button', { name: 'Pass face check' }).click();
      await page.getByRole('heading', { name: 'Verity demo wants to use your information' }).waitFor();
      await page.getByRole('button', { name: 'Allow' }).click();
      await page.waitForURL(`${demo.url}/`);
      await bodyContains(page, 'UserInfo claims');
      expect(await page.locator('#userinfo-error').count()).toBe(0);
      expect((await page.locator('main code').first().textContent())!).toBe(sub);
    });
  });
});
