import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test';
import * as oidc from 'openid-client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { replacePostLogoutRedirectUris } from '../../src/apps/application.store.ts';
import { signJwt } from '../../src/keys/sign-jwt.ts';
import { fixedClock } from '../../src/platform/clock.ts';
import { endSessionUrl } from '../../src/sdk/index.ts';
import { createTestApp, type TestApp } from '../helpers/apps.ts';
import { launchChromium } from '../helpers/chromium.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { completeSandboxFlow, type RelyingParty, startRelyingParty, watchConsole } from './relying-party.ts';

setDefaultTimeout(60_000);

/**
 * RP-initiated logout in Chromium: an application signed in through the hosted flow with openid-client
 * sends the browser to the discovery document's end_session_endpoint, with the URL the SDK builds.
 */

let server: TestServer;
let rp: RelyingParty;
let browser: Browser;
let app: TestApp;
let config: oidc.Configuration;

beforeAll(async () => {
  // openid-client validates tokens against real time, so the server's clock starts now.
  server = await startTestServer({
    clock: fixedClock(Date.now()),
    // A recent face check is reused, so that prompt=none can answer.
    extra: '[rate_limits.oauth]\nrequests = 1000\n[face]\nreuse_within = "10m"',
  });
  rp = startRelyingParty();
  app = await createTestApp(server.ctx, {
    type: 'confidential',
    redirectUris: [rp.callbackUrl],
    scopes: 'openid email',
    name: 'Logout RP',
  });
  // The relying party's callback records any query, so it serves as the post-logout page too.
  replacePostLogoutRedirectUris(server.ctx.db, app.environmentId, [rp.callbackUrl]);
  config = await oidc.discovery(
    new URL(server.ctx.config.server.base_url),
    app.clientId,
    app.clientSecret,
    oidc.ClientSecretBasic(app.clientSecret!),
    { execute: [oidc.allowInsecureRequests] },
  );
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await rp?.stop();
  await server?.stop();
});

/** The hosted flow as a persona in `page`, the code exchanged by openid-client; returns the ID token. */
async function signIn(page: Page, purpose: string): Promise<string> {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: rp.callbackUrl,
    scope: 'openid email',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
    purpose,
  });
  const arrived = rp.nextCallback();
  await page.goto(url.href);
  await completeSandboxFlow(page);
  const callback = new URL(rp.callbackUrl);
  for (const [k, v] of Object.entries(await arrived)) callback.searchParams.set(k, v);
  const tokens = await oidc.authorizationCodeGrant(config, callback, {
    pkceCodeVerifier: verifier,
    expectedState: state,
    expectedNonce: nonce,
    idTokenExpected: true,
  });
  return tokens.id_token!;
}

/** Whether the identity session of this browser has a person: the account page says so. */
async function accountShowsSignedIn(page: Page): Promise<boolean> {
  await page.goto(`${server.ctx.config.server.identity_url}/account`);
  const heading = await page.getByRole('heading', { level: 1 }).textContent();
  return heading === 'Your account';
}

/** A page of the relying party (another site) posting a form, as authorize and logout (§2) allow. */
async function postFromRelyingParty(page: Page, action: string, fields: Record<string, string>) {
  await page.goto(`${rp.origin}/start?to=about:blank`);
  await page.evaluate(
    ({ action, fields }) => {
      const form = document.createElement('form');
      form.method = 'post';
      form.action = action;
      for (const [name, value] of Object.entries(fields)) {
        const input = document.createElement('input');
        input.type = 'hidden';
        input.name = name;
        input.value = value;
        form.append(input);
      }
      document.body.append(form);
      form.submit();
    },
    { action, fields },
  );
}

const endSessionEndpoint = () => config.serverMetadata().end_session_endpoint!;

async function withContext(fn: (page: Page, context: BrowserContext) => Promise<void>) {
  const context = await browser.newContext();
  try {
    await fn(await context.newPage(), context);
  } finally {
    await context.close();
  }
}

test('with id_token_hint: signed out at once, back at the registered URI with state, next sign-in asks again', async () => {
  await withContext(async (page) => {
    const idToken = await signIn(page, 'Logout with hint');
    expect(await accountShowsSignedIn(page)).toBe(true);

    const back = rp.nextCallback();
    await page.goto(
      endSessionUrl({
        endSessionEndpoint: endSessionEndpoint(),
        idTokenHint: idToken,
        postLogoutRedirectUri: rp.callbackUrl,
        state: 'after-logout',
      }),
    );
    expect(await back).toEqual({ state: 'after-logout' });
    await page.waitForURL(`${rp.callbackUrl}?state=after-logout`);

    // The next authorization request starts from sign-in again.
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: rp.callbackUrl,
      scope: 'openid',
      code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
      code_challenge_method: 'S256',
      state: oidc.randomState(),
      nonce: oidc.randomNonce(),
    });
    await page.goto(url.href);
    await expect(page.getByRole('button', { name: 'Ada Sandbox', exact: true }).isVisible()).resolves.toBe(
      true,
    );
  });
});

test('without id_token_hint: a confirmation page, and the session lasts until "Sign out" is pressed', async () => {
  await withContext(async (page) => {
    await signIn(page, 'Logout without hint');
    const problems = watchConsole(page);
    const logoutUrl = endSessionUrl({
      endSessionEndpoint: endSessionEndpoint(),
      clientId: app.clientId,
      postLogoutRedirectUri: rp.callbackUrl,
      state: 'confirmed',
    });
    await page.goto(logoutUrl);
    await expect(page.getByText('Logout RP asks to sign you out of Verity.').isVisible()).resolves.toBe(true);
    // Leaving the page without confirming keeps the person signed in.
    expect(await accountShowsSignedIn(page)).toBe(true);

    await page.goto(logoutUrl);
    const back = rp.nextCallback();
    await page.getByRole('button', { name: 'Sign out' }).click();
    expect(await back).toEqual({ state: 'confirmed' });
    await page.waitForURL(`${rp.callbackUrl}?state=confirmed`);
    expect(problems).toEqual([]);
    expect(await accountShowsSignedIn(page)).toBe(false);
  });
});

test("the RP's form POST to end_session_endpoint signs out like a GET", async () => {
  await withContext(async (page) => {
    const idToken = await signIn(page, 'Logout by POST');
    const back = rp.nextCallback();
    await postFromRelyingParty(page, endSessionEndpoint(), {
      id_token_hint: idToken,
      post_logout_redirect_uri: rp.callbackUrl,
      state: 'posted',
    });
    expect(await back).toEqual({ state: 'posted' });
    await page.waitForURL(`${rp.callbackUrl}?state=posted`);
    expect(await accountShowsSignedIn(page)).toBe(false);
  });
});

test("an ID token carrying the person's photo is a hint too, posted to authorize and to logout", async () => {
  await withContext(async (page) => {
    const idToken = await signIn(page, 'Hint with photo');
    const problems = watchConsole(page);
    // A claims request can place the photo (up to 64 KiB) in the ID token: over 100 KB.
    const claims = JSON.parse(Buffer.from(idToken.split('.')[1]!, 'base64url').toString());
    const photo = `data:image/jpeg;base64,/9j/${'A'.repeat(87_000)}`;
    const hint = await signJwt(server.ctx.keys, 'JWT', { ...claims, picture: photo });
    expect(hint.length).toBeGreaterThan(100_000);

    const answered = rp.nextCallback();
    await postFromRelyingParty(page, config.serverMetadata().authorization_endpoint!, {
      response_type: 'code',
      client_id: app.clientId,
      redirect_uri: rp.callbackUrl,
      scope: 'openid email',
      code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
      code_challenge_method: 'S256',
      state: 'hinted',
      nonce: oidc.randomNonce(),
      purpose: 'Hint with photo',
      prompt: 'none',
      id_token_hint: hint,
    });
    // Answered for the person the hint names, who is signed in in this browser.
    expect(Object.keys(await answered).sort()).toEqual(['code', 'iss', 'state']);
    await page.waitForURL(/[?&]state=hinted/);

    const back = rp.nextCallback();
    await postFromRelyingParty(page, endSessionEndpoint(), {
      id_token_hint: hint,
      post_logout_redirect_uri: rp.callbackUrl,
      state: 'photo',
    });
    expect(await back).toEqual({ state: 'photo' });
    await page.waitForURL(`${rp.callbackUrl}?state=photo`);
    expect(problems).toEqual([]);
    expect(await accountShowsSignedIn(page)).toBe(false);
  });
});
