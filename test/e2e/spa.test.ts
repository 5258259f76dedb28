import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import { locatedSecretId } from '../../src/crypto/located-secret.ts';
import { createCodeStore } from '../../src/oauth/code.store.ts';
import { fixedClock } from '../../src/platform/clock.ts';
import { SPA_CLIENT_JS } from '../../src/sdk/browser/bundle.gen.ts';
import { createTestApp, type TestApp } from '../helpers/apps.ts';
import { launchChromium } from '../helpers/chromium.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { completeSandboxFlow, watchConsole } from './relying-party.ts';

setDefaultTimeout(60_000);

/**
 * A single-page app served from its own loopback origin signs in with the bundled public-client flow:
 * PKCE and the transaction in the tab, the hosted pages, then the code exchange, the JWKS and UserInfo
 * fetched cross-origin from the page. The same page on an origin the application did not register is
 * stopped by CORS before its code is spent.
 */

interface SpaHost {
  origin: string;
  callbackUrl: string;
  /** Written into the page; set once the application is registered with this host's addresses. */
  clientId: string;
  stop(): void;
}

const spaPage = (
  issuer: string,
  clientId: string,
) => `<!doctype html><html><head><title>SPA</title><link rel="icon" href="data:,"></head><body>
<button id="signin">Sign in</button>
<script type="module">
  import { createSpaClient } from '/verity-spa.js';
  const verity = createSpaClient({
    issuer: ${JSON.stringify(issuer)},
    clientId: ${JSON.stringify(clientId)},
    redirectUri: location.origin + '/callback',
  });
  const show = (r) => { document.body.dataset.result = JSON.stringify(r); };
  if (verity.isCallback()) {
    try {
      const { tokens, claims } = await verity.handleCallback();
      show({ claims, userinfo: await verity.userinfo(tokens.access_token), tokenType: tokens.token_type });
    } catch (e) {
      show({ error: e.code, message: e.message });
    }
  } else {
    document.getElementById('signin').onclick = () =>
      verity.startSignIn({ scope: 'openid profile email', purpose: 'Sign in to ' + location.origin });
  }
</script></body></html>`;

/** A static host for the app: its one page at `/` and `/callback`, and the SDK bundle. */
function startSpaHost(issuer: string): SpaHost {
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(req) {
      const { pathname } = new URL(req.url);
      if (pathname === '/' || pathname === '/callback')
        return new Response(spaPage(issuer, host.clientId), { headers: { 'content-type': 'text/html' } });
      if (pathname === '/verity-spa.js')
        return new Response(SPA_CLIENT_JS, { headers: { 'content-type': 'text/javascript' } });
      return new Response('not found', { status: 404 });
    },
  });
  const origin = `http://127.0.0.1:${server.port}`;
  const host: SpaHost = {
    origin,
    callbackUrl: `${origin}/callback`,
    clientId: '',
    stop: () => server.stop(true),
  };
  return host;
}

let server: TestServer;
let browser: Browser;
let registered: SpaHost;
let unregistered: SpaHost;
let app: TestApp;

beforeAll(async () => {
  // The page validates the ID token against its own (real) time, so the server's clock starts now.
  server = await startTestServer({
    clock: fixedClock(Date.now()),
    extra: '[rate_limits.oauth]\nrequests = 1000',
  });
  registered = startSpaHost(server.ctx.config.server.base_url);
  unregistered = startSpaHost(server.ctx.config.server.base_url);
  app = await createTestApp(server.ctx, {
    type: 'public',
    // Both callbacks are registered, so the unregistered origin does get a code; only its web origin is missing.
    redirectUris: [registered.callbackUrl, unregistered.callbackUrl],
    webOrigins: [registered.origin],
    scopes: 'openid profile email',
    name: 'Single-page app',
  });
  registered.clientId = app.clientId;
  unregistered.clientId = app.clientId;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  registered?.stop();
  unregistered?.stop();
  await server?.stop();
});

/** Signs in from the host's page and returns the page once it shows its outcome, with the callback URL. */
async function signInFrom(host: SpaHost, page: Page) {
  let callback: string | undefined;
  page.on('request', (r) => {
    if (r.isNavigationRequest() && r.url().startsWith(`${host.callbackUrl}?`)) callback = r.url();
  });
  await page.goto(`${host.origin}/`);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await completeSandboxFlow(page);
  await page.waitForFunction(() => document.body.dataset.result !== undefined, undefined, { polling: 50 });
  const result = JSON.parse((await page.evaluate(() => document.body.dataset.result))!);
  return { result, callback: callback! };
}

const codeOf = (callbackUrl: string) =>
  createCodeStore(server.ctx.db).find(locatedSecretId(new URL(callbackUrl).searchParams.get('code')!)!);

const storedTransactions = (page: Page) =>
  page.evaluate(() => Object.keys(sessionStorage).filter((k) => k.startsWith('verity.')));

test('a page on a registered web origin signs in, exchanges the code and reads UserInfo cross-origin', async () => {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const problems = watchConsole(page);
    const { result, callback } = await signInFrom(registered, page);

    expect(result.error).toBeUndefined();
    expect(result.tokenType).toBe('Bearer');
    expect(result.claims.iss).toBe(server.ctx.config.server.base_url);
    expect(result.claims.aud).toBe(app.clientId);
    expect(result.claims.sub).toBe(result.userinfo.sub);
    expect(result.userinfo.email).toContain('@');
    expect(codeOf(callback)?.used_at).not.toBeNull();
    // The code left the address bar and the transaction left the tab.
    expect(page.url()).toBe(registered.callbackUrl);
    expect(await storedTransactions(page)).toEqual([]);
    expect(problems).toEqual([]);

    // Back to the same callback (history, a reload, a shared link): refused before any exchange.
    let tokenRequests = 0;
    page.on('request', (r) => {
      if (r.url().endsWith('/v1/oauth/token')) tokenRequests++;
    });
    await page.goto(callback);
    await page.waitForFunction(() => document.body.dataset.result !== undefined, undefined, { polling: 50 });
    const replay = JSON.parse((await page.evaluate(() => document.body.dataset.result))!);
    expect(replay.error).toBe('transaction_missing');
    expect(tokenRequests).toBe(0);
  } finally {
    await context.close();
  }
});

test('a page on an unregistered origin is blocked by CORS and its code is not spent', async () => {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const problems = watchConsole(page);
    const { result, callback } = await signInFrom(unregistered, page);

    // The browser refused the response: fetch rejected with a TypeError, and no token reached the page.
    expect(result.error).toBe('unexpected_response');
    expect(result.message).toContain('Failed to fetch');
    expect(result.claims).toBeUndefined();
    expect(result.userinfo).toBeUndefined();
    expect(problems.some((p) => p.includes('blocked by CORS policy') && p.includes('/v1/oauth/token'))).toBe(
      true,
    );
    // Verity never redeemed the code for that origin.
    expect(codeOf(callback)?.used_at).toBeNull();
    expect(await storedTransactions(page)).toEqual([]);
  } finally {
    await context.close();
  }
});
