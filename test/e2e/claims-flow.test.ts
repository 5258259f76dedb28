import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test';
import * as oidc from 'openid-client';
import type { Browser } from 'playwright-core';
import { fixedClock } from '../../src/platform/clock.ts';
import { verifiedClaimsProblems } from '../assurance/ida-schema.ts';
import { createTestApp, type TestApp } from '../helpers/apps.ts';
import { launchChromium } from '../helpers/chromium.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { setDocumentPolicy } from '../userinfo/fixtures.ts';
import { type RelyingParty, signInWithOpenIdClient, startRelyingParty } from './relying-party.ts';

setDefaultTimeout(60_000);

/**
 * A relying party built on openid-client asks, through the `claims` parameter, for verified claims in
 * UserInfo and in the ID token; Ada signs in through the hosted pages in Chromium. The library
 * validates the ID token; the verified claims of both are held to the published OIDC4IDA schema.
 */

let server: TestServer;
let rp: RelyingParty;
let browser: Browser;
let app: TestApp;
const SCOPE =
  'openid identity_verified identity_assurance_level legal_name date_of_birth document_type document_issuing_country';

beforeAll(async () => {
  server = await startTestServer({
    clock: fixedClock(Date.now()),
    extra: '[rate_limits.oauth]\nrequests = 1000',
  });
  rp = startRelyingParty();
  app = await createTestApp(server.ctx, {
    type: 'confidential',
    redirectUris: [rp.callbackUrl],
    scopes: SCOPE,
    name: 'Assured RP',
  });
  setDocumentPolicy(server.ctx, app, ['passport'], ['DE']);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await rp?.stop();
  await server?.stop();
});

test('verified_claims in UserInfo and the ID token, as asked and schema-valid', async () => {
  const config = await oidc.discovery(
    new URL(server.ctx.config.server.base_url),
    app.clientId,
    app.clientSecret,
    oidc.ClientSecretBasic(app.clientSecret!),
    { execute: [oidc.allowInsecureRequests] },
  );
  const metadata = config.serverMetadata();
  expect(metadata.claims_parameter_supported).toBe(true);
  expect(metadata.trust_frameworks_supported).toEqual(['verity_sandbox']);

  const claims = {
    id_token: {
      verified_claims: {
        verification: { trust_framework: { value: 'verity_sandbox' }, assurance_level: null },
        claims: { given_name: null, family_name: null },
      },
    },
    userinfo: {
      verified_claims: {
        verification: {
          trust_framework: null,
          time: null,
          evidence: [
            { type: { value: 'document' }, document_details: { type: null, issuer: { country: null } } },
          ],
        },
        claims: { birthdate: { essential: true } },
      },
    },
  };
  const tokens = await signInWithOpenIdClient({
    browser,
    rp,
    config,
    scope: SCOPE,
    purpose: 'Open an account that needs your verified identity',
    params: { claims: JSON.stringify(claims) },
  });

  const idToken = tokens.claims()!;
  expect(idToken.verified_claims).toEqual({
    verification: { trust_framework: 'verity_sandbox', assurance_level: 'high' },
    claims: { given_name: 'Ada Marie', family_name: 'Sandbox' },
  });
  expect(verifiedClaimsProblems(idToken)).toEqual([]);

  const info = await oidc.fetchUserInfo(config, tokens.access_token, idToken.sub);
  expect(info.verified_claims).toEqual({
    verification: {
      trust_framework: 'verity_sandbox',
      time: '2025-09-15T09:30:00.000Z',
      evidence: [
        { type: 'document', document_details: { type: 'passport', issuer: { country: 'Germany' } } },
      ],
    },
    claims: { birthdate: '1990-12-10' },
  });
  expect(verifiedClaimsProblems(info)).toEqual([]);
  // The scope claims stay in UserInfo beside it.
  expect(info.legal_given_name).toBe('Ada Marie');
});
