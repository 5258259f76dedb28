import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test';
import * as oidc from 'openid-client';
import type { Browser } from 'playwright-core';
import { fixedClock } from '../../src/platform/clock.ts';
import { createTestApp, type TestApp } from '../helpers/apps.ts';
import { launchChromium } from '../helpers/chromium.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { type RelyingParty, signInWithOpenIdClient, startRelyingParty } from './relying-party.ts';

setDefaultTimeout(60_000);

/**
 * The whole integration sequence with a standard OpenID Connect library as the relying party:
 * discovery, PKCE, state, nonce, the hosted pages in Chromium, code exchange and ID-token validation
 * against the JWKS — for a confidential and a public client, in page and popup display.
 */

let server: TestServer;
let rp: RelyingParty;
let browser: Browser;
let confidential: TestApp;
let publicApp: TestApp;
const SCOPES = 'openid profile email';

beforeAll(async () => {
  // Tokens are validated by the library against real time, so the server's clock starts now.
  server = await startTestServer({
    clock: fixedClock(Date.now()),
    extra: '[rate_limits.oauth]\nrequests = 1000',
  });
  rp = startRelyingParty();
  confidential = await createTestApp(server.ctx, {
    type: 'confidential',
    redirectUris: [rp.callbackUrl],
    scopes: SCOPES,
    name: 'Confidential RP',
  });
  publicApp = await createTestApp(server.ctx, {
    type: 'public',
    redirectUris: [rp.callbackUrl],
    scopes: SCOPES,
    name: 'Public RP',
  });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await rp?.stop();
  await server?.stop();
});

const issuer = () => new URL(server.ctx.config.server.base_url);

async function configFor(kind: 'confidential' | 'public', auth: 'basic' | 'post' = 'basic') {
  const opts = { execute: [oidc.allowInsecureRequests] };
  if (kind === 'public') return oidc.discovery(issuer(), publicApp.clientId, undefined, oidc.None(), opts);
  const secret = confidential.clientSecret!;
  const method = auth === 'basic' ? oidc.ClientSecretBasic(secret) : oidc.ClientSecretPost(secret);
  return oidc.discovery(issuer(), confidential.clientId, secret, method, opts);
}

async function run(
  kind: 'confidential' | 'public',
  display: 'page' | 'popup',
  auth: 'basic' | 'post' = 'basic',
  tag = '',
) {
  const config = await configFor(kind, auth);
  const tokens = await signInWithOpenIdClient({
    browser,
    rp,
    config,
    scope: SCOPES,
    // A purpose per run: an identical earlier consent would skip the consent screen.
    purpose: `Create your account (${kind}, ${display}, ${auth}${tag})`,
    display,
  });
  return { tokens, config };
}

for (const kind of ['confidential', 'public'] as const)
  for (const display of ['page', 'popup'] as const)
    test(`${kind} client, display=${display}: code exchanged, ID token validated`, async () => {
      const { tokens, config } = await run(kind, display);
      expect(tokens.token_type.toLowerCase()).toBe('bearer');
      expect(tokens.access_token).toStartWith('at_');
      expect(tokens.expires_in).toBe(900);
      expect(tokens.refresh_token).toBeUndefined();
      const claims = tokens.claims()!;
      expect(claims.iss).toBe(config.serverMetadata().issuer);
      expect(claims.aud).toBe(kind === 'public' ? publicApp.clientId : confidential.clientId);
      expect(claims.sub).not.toContain('psn_');
      expect(claims.acr).toBe('high');
      expect(claims.amr).toEqual(['sandbox', 'face']);
      expect(typeof claims.auth_time).toBe('number');
    });

test('client_secret_post works too, and both applications see different pairwise subjects', async () => {
  const a = await run('confidential', 'page', 'post');
  const b = await run('public', 'page', 'basic', ', again');
  expect(a.tokens.claims()!.sub).not.toBe(b.tokens.claims()!.sub);
});
