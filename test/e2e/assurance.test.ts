import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import * as oidc from 'openid-client';
import type { BrowserContext, Browser as Chromium, Page } from 'playwright-core';
import { updateApplication } from '../../src/apps/registration.ts';
import { fixedClock } from '../../src/platform/clock.ts';
import { createTestApp, type TestApp } from '../helpers/apps.ts';
import { launchChromium } from '../helpers/chromium.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { claimAccessEvents } from '../identity/flow-helpers.ts';
import { type RelyingParty, startRelyingParty } from './relying-party.ts';

setDefaultTimeout(60_000);

/**
 * Required assurance (acr_values, an environment's minimum_acr) and face-check reuse, with openid-client
 * as the relying party and the sandbox personas in Chromium: Cleo is at `none`, Ben at `substantial`,
 * Ada at `high`.
 */

const SCOPES = 'openid liveness_verified face_match_verified identity_assurance_level';

let chromium: Chromium;
let rp: RelyingParty;

beforeAll(async () => {
  chromium = await launchChromium();
  rp = startRelyingParty();
});

afterAll(async () => {
  await chromium?.close();
  await rp?.stop();
});

interface Setup {
  server: TestServer;
  app: TestApp;
  config: oidc.Configuration;
}

async function setUp(extra = ''): Promise<Setup> {
  // openid-client checks tokens against real time, so the server's clock starts now.
  const server = await startTestServer({
    clock: fixedClock(Date.now()),
    extra: `[rate_limits.oauth]\nrequests = 1000\n${extra}`,
  });
  const app = await createTestApp(server.ctx, {
    type: 'confidential',
    redirectUris: [rp.callbackUrl],
    scopes: SCOPES,
    name: 'Assured RP',
    subscribed: true,
  });
  const config = await oidc.discovery(
    new URL(server.ctx.config.server.base_url),
    app.clientId,
    app.clientSecret,
    oidc.ClientSecretBasic(app.clientSecret!),
    { execute: [oidc.allowInsecureRequests] },
  );
  return { server, app, config };
}

let purposeCount = 0;

/**
 * One authorization in `context` (a browser keeps its sign-in session between calls): `act` drives the
 * hosted pages, then the callback is handed to openid-client, which checks state, iss, nonce and the
 * ID token, and throws for an error response.
 */
async function authorize(
  s: Setup,
  context: BrowserContext,
  params: Record<string, string>,
  act: (page: Page) => Promise<void>,
) {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  // A purpose per authorization unless given: an identical earlier consent would skip the consent screen.
  const purpose = params.purpose ?? `Check who you are (${++purposeCount})`;
  const url = oidc.buildAuthorizationUrl(s.config, {
    redirect_uri: rp.callbackUrl,
    scope: SCOPES,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
    ...params,
    purpose,
  });
  const page = await context.newPage();
  const arrived = rp.nextCallback();
  await page.goto(url.href);
  await act(page);
  const query = await arrived;
  await page.close();
  const callback = new URL(rp.callbackUrl);
  for (const [k, v] of Object.entries(query)) callback.searchParams.set(k, v);
  const exchange = async () => {
    const tokens = await oidc.authorizationCodeGrant(s.config, callback, {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
      idTokenExpected: true,
    });
    return { tokens, claims: tokens.claims()! };
  };
  return { query, state, purpose, exchange };
}

const persona =
  (name: string, allow = true) =>
  async (page: Page) => {
    await page.getByRole('button', { name, exact: true }).click();
    await page.getByRole('button', { name: 'Pass face check' }).click();
    if (allow) await page.getByRole('button', { name: 'Allow' }).click();
  };
/** The flow ends right after the persona is chosen. */
const personaOnly = (name: string) => async (page: Page) => {
  await page.getByRole('button', { name, exact: true }).click();
};
const nothing = async () => {};

/** The error openid-client reports for an error callback. */
async function errorOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof oidc.AuthorizationResponseError) return e.error;
    throw e;
  }
  throw new Error('expected an error response');
}

const completedEvents = (s: Setup) => claimAccessEvents(s.server.ctx.db);

describe('required assurance (acr)', () => {
  let s: Setup;
  beforeAll(async () => {
    s = await setUp();
  });
  afterAll(() => s?.server.stop());

  test('discovery publishes the levels and the acr and amr claims', async () => {
    const meta = s.config.serverMetadata();
    expect(meta.acr_values_supported).toEqual(['none', 'low', 'substantial', 'high']);
    expect(meta.claims_supported).toEqual(expect.arrayContaining(['acr', 'amr']));
  });

  test('Cleo (none) asked for low: unmet_authentication_requirements at the callback, before consent', async () => {
    const context = await chromium.newContext();
    const { query, state, exchange } = await authorize(
      s,
      context,
      { acr_values: 'low' },
      personaOnly('Cleo Sandbox'),
    );
    await context.close();
    expect(query.error).toBe('unmet_authentication_requirements');
    expect(query.state).toBe(state);
    expect(query.iss).toBe(s.server.ctx.config.server.base_url);
    expect(query.code).toBeUndefined();
    expect(await errorOf(exchange())).toBe('unmet_authentication_requirements');
    expect(completedEvents(s).at(-1)).toMatchObject({ decision: 'failed', reason: 'assurance_unmet' });
    // Nothing was consented to.
    const consents = s.server.ctx.db.sql.prepare<{ n: number }>('SELECT count(*) AS n FROM consents').get()!;
    expect(consents.n).toBe(0);
  });

  test('an essential acr in the claims parameter is a requirement too, over acr_values', async () => {
    const context = await chromium.newContext();
    const claims = JSON.stringify({ id_token: { acr: { essential: true, values: ['low', 'high'] } } });
    const { query, state } = await authorize(
      s,
      context,
      { claims, acr_values: 'none' },
      personaOnly('Cleo Sandbox'),
    );
    await context.close();
    expect(query.error).toBe('unmet_authentication_requirements');
    expect(query.state).toBe(state);
  });

  test('Ada (high) asked for "high substantial": a code, and the ID token says high', async () => {
    const context = await chromium.newContext();
    const { exchange } = await authorize(
      s,
      context,
      { acr_values: 'high substantial' },
      persona('Ada Sandbox'),
    );
    await context.close();
    const { claims } = await exchange();
    expect(claims.acr).toBe('high');
    expect(claims.amr).toEqual(['sandbox', 'face']);
  });

  test('the acr is the level reached, not the one asked for', async () => {
    const context = await chromium.newContext();
    const { exchange } = await authorize(s, context, { acr_values: 'low' }, persona('Ben Sandbox'));
    await context.close();
    expect((await exchange()).claims.acr).toBe('substantial');
  });

  test('unknown values are ignored; a list of only unknown ones is refused before sign-in', async () => {
    const context = await chromium.newContext();
    const ok = await authorize(
      s,
      context,
      { acr_values: 'urn:example:gold substantial' },
      persona('Ben Sandbox'),
    );
    expect((await ok.exchange()).claims.acr).toBe('substantial');
    const refused = await authorize(s, context, { acr_values: 'urn:example:gold' }, nothing);
    await context.close();
    expect(refused.query.error).toBe('invalid_request');
    expect(refused.query.error_description).toContain('acr_values');
    expect(refused.query.state).toBe(refused.state);
  });

  test("the environment's minimum_acr applies when the request names none, and cannot be undercut", async () => {
    updateApplication(s.server.ctx.db, s.server.ctx.clock, s.app.applicationId, {
      minimumAcr: 'substantial',
      actor: 'cli',
    });
    try {
      for (const params of [{}, { acr_values: 'none' }] as Record<string, string>[]) {
        const context = await chromium.newContext();
        const { query } = await authorize(s, context, params, personaOnly('Cleo Sandbox'));
        await context.close();
        expect(query.error).toBe('unmet_authentication_requirements');
      }
      const context = await chromium.newContext();
      const ben = await authorize(s, context, {}, persona('Ben Sandbox'));
      await context.close();
      expect((await ben.exchange()).claims.acr).toBe('substantial');
    } finally {
      updateApplication(s.server.ctx.db, s.server.ctx.clock, s.app.applicationId, {
        minimumAcr: 'none',
        actor: 'cli',
      });
    }
  });
});

describe('prompt=none and face-check reuse', () => {
  test('reuse off (the default): prompt=none still needs the person for face assurance', async () => {
    const s = await setUp();
    try {
      const context = await chromium.newContext();
      const first = await authorize(s, context, {}, persona('Ada Sandbox'));
      await first.exchange();
      const again = await authorize(s, context, { prompt: 'none', purpose: first.purpose }, nothing);
      await context.close();
      expect(await errorOf(again.exchange())).toBe('interaction_required');
    } finally {
      await s.server.stop();
    }
  });

  test('reuse on: prompt=none succeeds within the window without a new face check', async () => {
    const s = await setUp('[face]\nreuse_within = "10m"');
    try {
      const context = await chromium.newContext();
      const first = await authorize(s, context, {}, persona('Ada Sandbox'));
      const signedIn = await first.exchange();
      const firstClaims = signedIn.claims;
      const faceOf = (access: string, sub: string) => oidc.fetchUserInfo(s.config, access, sub);
      expect(await faceOf(signedIn.tokens.access_token, firstClaims.sub)).toMatchObject({
        liveness_verified: true,
        face_match_verified: true,
      });

      // A face check in this session covers the new authorization; the consent is the one given above.
      const again = await authorize(s, context, { prompt: 'none', purpose: first.purpose }, nothing);
      const { claims, tokens } = await again.exchange();
      expect(claims.auth_time).toBe(firstClaims.auth_time);
      expect(claims.amr).toEqual(['sandbox']);
      expect(claims.acr).toBe('high');
      // This authorization did not perform the check itself.
      expect(await faceOf(tokens.access_token, claims.sub)).toMatchObject({
        liveness_verified: false,
        face_match_verified: false,
      });

      // max_age is still honoured: max_age=0 asks for a sign-in now, which prompt=none cannot give.
      const fresh = await authorize(
        s,
        context,
        { prompt: 'none', purpose: first.purpose, max_age: '0' },
        nothing,
      );
      expect(await errorOf(fresh.exchange())).toBe('login_required');
      // Without a covering consent, prompt=none still fails.
      const other = await authorize(s, context, { prompt: 'none' }, nothing);
      expect(await errorOf(other.exchange())).toBe('consent_required');

      // Past the window, face assurance needs the person again.
      s.server.clock.advance(10 * 60_000);
      const late = await authorize(s, context, { prompt: 'none', purpose: first.purpose }, nothing);
      await context.close();
      expect(await errorOf(late.exchange())).toBe('interaction_required');
    } finally {
      await s.server.stop();
    }
  });
});
