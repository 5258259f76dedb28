import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import * as oidc from 'openid-client';
import type { Browser } from 'playwright-core';
import { setApplicationFields } from '../../src/apps/application.store.ts';
import { createDeveloper } from '../../src/developer/developer.store.ts';
import { fixedClock } from '../../src/platform/clock.ts';
import { dispatchDue } from '../../src/webhooks/dispatcher.ts';
import { createEndpoint } from '../../src/webhooks/endpoints.ts';
import { createTestApp, type TestApp } from '../helpers/apps.ts';
import { launchChromium } from '../helpers/chromium.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { LOCALHOST_OK, type Receiver, receiver } from '../webhooks/fixtures.ts';
import {
  completeSandboxFlow,
  type RelyingParty,
  signInWithOpenIdClient,
  startRelyingParty,
} from './relying-party.ts';

setDefaultTimeout(60_000);

/**
 * openid-client against the real server: token revocation (RFC 7009) for a confidential and a public
 * client, and a native app's loopback redirect URI registered without a port (RFC 8252 §7.3) while
 * the relying party listens on whatever port it got.
 */

let server: TestServer;
let rp: RelyingParty;
let browser: Browser;
let hook: Receiver;
let confidential: TestApp;
let publicApp: TestApp;
const SCOPE = 'openid profile';
/** The relying party's callback as registered: its loopback literal without the port it listens on. */
let registered: string;

beforeAll(async () => {
  // openid-client checks the ID token against real time, so the server's clock starts now.
  server = await startTestServer({
    clock: fixedClock(Date.now()),
    extra: `[rate_limits.oauth]\nrequests = 1000\n${LOCALHOST_OK}`,
  });
  rp = startRelyingParty();
  registered = rp.callbackUrl.replace(/:\d+\//, '/');
  expect(registered).toBe('http://127.0.0.1/callback');
  confidential = await createTestApp(server.ctx, {
    type: 'confidential',
    redirectUris: [registered],
    scopes: SCOPE,
    name: 'Native backend',
  });
  publicApp = await createTestApp(server.ctx, {
    type: 'public',
    redirectUris: [registered],
    scopes: SCOPE,
    name: 'Native app',
  });
  hook = receiver();
  const { developerId } = createDeveloper(server.ctx.db, server.ctx.clock, { email: 'native@example.com' });
  setApplicationFields(server.ctx.db, confidential.applicationId, { ownerDeveloperId: developerId });
  await createEndpoint(server.ctx, { developerId, environment: 'sandbox' }, confidential.applicationId, {
    url: hook.url,
    events: ['token.revoked'],
  });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await hook?.stop();
  await rp?.stop();
  await server?.stop();
});

const issuer = () => new URL(server.ctx.config.server.base_url);
const insecure = { execute: [oidc.allowInsecureRequests] };

function configFor(kind: 'confidential' | 'public') {
  if (kind === 'public')
    return oidc.discovery(issuer(), publicApp.clientId, undefined, oidc.None(), insecure);
  const secret = confidential.clientSecret!;
  return oidc.discovery(issuer(), confidential.clientId, secret, oidc.ClientSecretBasic(secret), insecure);
}

let runs = 0;
const signIn = async (config: oidc.Configuration) =>
  signInWithOpenIdClient({ browser, rp, config, scope: SCOPE, purpose: `Sign in (run ${++runs})` });

/** UserInfo as a relying party calls it; the status it answers. */
async function userinfoStatus(token: string): Promise<number> {
  const res = await fetch(`${server.url}/v1/userinfo`, { headers: { Authorization: `Bearer ${token}` } });
  await res.body?.cancel();
  return res.status;
}

describe('RFC 8252: a loopback redirect URI registered without a port', () => {
  test('authorize and token succeed on the port the relying party listens on', async () => {
    expect(rp.callbackUrl).not.toBe(registered);
    const config = await configFor('public');
    const tokens = await signIn(config);
    expect(tokens.access_token).toStartWith('at_');
    expect(tokens.claims()!.aud).toBe(publicApp.clientId);
  });

  test('every other difference is refused at authorize with a page, never a redirect', async () => {
    const config = await configFor('confidential');
    const port = new URL(rp.callbackUrl).port;
    for (const redirect_uri of [
      `http://localhost:${port}/callback`,
      `https://127.0.0.1:${port}/callback`,
      `http://127.0.0.2:${port}/callback`,
      `http://127.0.0.1:${port}/callback/other`,
      `http://127.0.0.1:${port}/callback?x=1`,
      `http://127.0.0.1.evil.example:${port}/callback`,
      `http://evil.example@127.0.0.1:${port}/callback`,
    ]) {
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri,
        scope: SCOPE,
        state: oidc.randomState(),
        nonce: oidc.randomNonce(),
        code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
        code_challenge_method: 'S256',
      });
      const res = await fetch(url.href.replace(server.ctx.config.server.base_url, server.url), {
        redirect: 'manual',
      });
      expect({ redirect_uri, status: res.status, location: res.headers.get('location') }).toEqual({
        redirect_uri,
        status: 400,
        location: null,
      });
      await res.body?.cancel();
    }
  });

  test('the code is bound to the port used at authorize: another port at the token endpoint fails', async () => {
    const config = await configFor('confidential');
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: rp.callbackUrl,
      scope: SCOPE,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce: oidc.randomNonce(),
      purpose: 'Sign in (other port)',
    });
    const context = await browser.newContext();
    const arrived = rp.nextCallback();
    try {
      const page = await context.newPage();
      await page.goto(url.href);
      await completeSandboxFlow(page);
    } finally {
      await context.close();
    }
    const query = await arrived;
    const elsewhere = new URL(rp.callbackUrl);
    elsewhere.port = String(Number(elsewhere.port) === 65535 ? 1024 : Number(elsewhere.port) + 1);
    for (const [k, v] of Object.entries(query)) elsewhere.searchParams.set(k, v);
    const err = await oidc
      .authorizationCodeGrant(config, elsewhere, { pkceCodeVerifier: verifier, expectedState: state })
      .catch((e) => e);
    expect(err).toBeInstanceOf(oidc.ResponseBodyError);
    expect(err.error).toBe('invalid_grant');
  });
});

describe('RFC 7009: openid-client tokenRevocation', () => {
  test('a confidential client revokes its token: UserInfo answers 401, and token.revoked is delivered', async () => {
    const config = await configFor('confidential');
    const tokens = await signIn(config);
    const sub = tokens.claims()!.sub;
    expect((await oidc.fetchUserInfo(config, tokens.access_token, sub)).sub).toBe(sub);

    await oidc.tokenRevocation(config, tokens.access_token, { token_type_hint: 'access_token' });
    expect(await userinfoStatus(tokens.access_token)).toBe(401);
    await expect(oidc.fetchUserInfo(config, tokens.access_token, sub)).rejects.toThrow();

    const outcomes = await dispatchDue(server.ctx);
    expect(outcomes.map((o) => o.status)).toEqual(['delivered']);
    const event = JSON.parse(hook.received.at(-1)!.body);
    expect(event).toMatchObject({
      type: 'token.revoked',
      data: {
        applicationId: confidential.applicationId,
        environment: 'sandbox',
        sub,
        reason: 'revoked_by_client',
      },
    });
  });

  test("a public client revokes its own token; another client's revocation of it changes nothing", async () => {
    const pub = await configFor('public');
    const tokens = await signIn(pub);
    // The confidential client is answered 200 too, but the public client's token stays valid.
    await oidc.tokenRevocation(await configFor('confidential'), tokens.access_token);
    expect(await userinfoStatus(tokens.access_token)).toBe(200);
    expect(await dispatchDue(server.ctx)).toHaveLength(0);

    await oidc.tokenRevocation(pub, tokens.access_token);
    expect(await userinfoStatus(tokens.access_token)).toBe(401);
    // Already revoked: still 200.
    await oidc.tokenRevocation(pub, tokens.access_token);
  });

  test('a wrong client secret is refused with invalid_client', async () => {
    const config = await oidc.discovery(
      issuer(),
      confidential.clientId,
      'cs_test_wrong',
      oidc.ClientSecretBasic('cs_test_wrong'),
      insecure,
    );
    const err = await oidc.tokenRevocation(config, 'at_anything').catch((e) => e);
    // The library surfaces the 401's Basic challenge; the body is the token endpoint's error.
    expect(err).toBeInstanceOf(oidc.WWWAuthenticateChallengeError);
    expect(err.status).toBe(401);
    expect(err.cause[0].scheme).toBe('basic');
    expect(((await err.response.json()) as { error: string }).error).toBe('invalid_client');
  });
});
