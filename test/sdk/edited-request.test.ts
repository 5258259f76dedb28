import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { approveAuthorization } from '../../src/oauth/authorization-result.ts';
import { createAuthorizationRequest, validateAuthorizeRequest } from '../../src/oauth/authorize-request.ts';
import { unix } from '../../src/platform/clock.ts';
import {
  AuthorizationError,
  createVerityClient,
  memoryTransactionStore,
  type VerityClient,
} from '../../src/sdk/index.ts';
import { createTestApp, type TestApp } from '../helpers/apps.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createTestConsent, createTestPerson, REDIRECT } from '../oauth/fixtures.ts';
import { setDocumentPolicy } from '../userinfo/fixtures.ts';

/**
 * The authorization URL passes through the browser, where the person signing in can edit it. What the
 * sign-in asked for that the answer must honour (a `sub`, an assurance level, `prompt=login`) is kept in
 * the transaction and checked on the way back, not taken on trust.
 */

/** The SDK's client against the real test server (issuer names localhost; the server is on 127.0.0.1). */
export function sdkClient(server: TestServer, app: TestApp): VerityClient {
  const issuer = server.ctx.config.server.base_url;
  return createVerityClient({
    issuer,
    clientId: app.clientId,
    ...(app.clientSecret ? { clientSecret: app.clientSecret } : {}),
    redirectUri: REDIRECT,
    store: memoryTransactionStore(),
    clock: server.clock,
    fetch: (input, init) => fetch(String(input).replace(issuer, server.url), init),
  });
}

/**
 * What the hosted pages do with an authorization URL the browser brought: validate the request as
 * received (after whatever the person changed in the address bar), let `personId` sign in and consent,
 * and return the callback URL the browser is sent back to.
 */
export async function approveAs(
  server: TestServer,
  app: TestApp,
  authorizationUrl: string,
  personId: string,
  tamper: (q: URLSearchParams) => void = () => {},
  /** When the person's sign-in happened (a reused Verity session answers with its own, older one). */
  authTime?: number,
): Promise<string> {
  const q = new URL(authorizationUrl).searchParams;
  tamper(q);
  const ctx = server.ctx;
  const requestId = createAuthorizationRequest(ctx, validateAuthorizeRequest(ctx, q));
  const consentId = createTestConsent(ctx, app, personId, q.get('scope')!.split(' '));
  return approveAuthorization(ctx, requestId, {
    personId,
    consentId,
    authTime: authTime ?? unix(ctx.clock) - 30,
    acr: 'high',
    amr: ['pwd', 'face'],
    livenessVerified: true,
    faceMatchVerified: true,
  });
}

let server: TestServer;
let app: TestApp;

beforeAll(async () => {
  server = await startTestServer({ extra: '[rate_limits.oauth]\nrequests = 1000' });
  app = await createTestApp(server.ctx, { type: 'confidential', redirectUris: [REDIRECT], scopes: 'openid' });
});
afterAll(() => server.stop());

const claimsForSub = (sub: string) => ({ id_token: { sub: { value: sub } } }) as never;

/** Alice signed in once; the application now asks for her by her `sub` (a step-up), and Bob is at the keyboard. */
async function stepUpForAlice(session: string) {
  const verity = sdkClient(server, app);
  const alice = createTestPerson(server.ctx);
  const bob = createTestPerson(server.ctx);
  const first = await verity.startSignIn({ sessionId: session, scope: 'openid' });
  const { result } = await verity.handleCallback(
    await approveAs(server, app, first.authorizationUrl, alice),
    session,
  );
  const stepUp = await verity.startSignIn({
    sessionId: session,
    scope: 'openid',
    claims: claimsForSub(result.claims!.sub),
  });
  return { verity, bob, authorizationUrl: stepUp.authorizationUrl };
}

test('a sign-in asked for one person: Verity refuses another while the request is intact', async () => {
  const { verity, bob, authorizationUrl } = await stepUpForAlice('s-a');
  const err = await verity
    .handleCallback(await approveAs(server, app, authorizationUrl, bob), 's-a')
    .catch((e) => e);
  expect(err).toBeInstanceOf(AuthorizationError);
  expect(err.code).toBe('access_denied');
});

test('with the claims request deleted from the URL, another person is refused by the SDK', async () => {
  const { verity, bob, authorizationUrl } = await stepUpForAlice('s-b');
  // Bob deletes `claims` from the address bar.
  const callback = await approveAs(server, app, authorizationUrl, bob, (q) => q.delete('claims'));
  const outcome = await verity.handleCallback(callback, 's-b').then(
    (r) => ({ accepted: true as const, sub: r.result.claims?.sub }),
    (e: Error) => ({ accepted: false as const, error: e.message }),
  );
  expect(outcome).toEqual({ accepted: false, error: 'ID token sub is not the one the sign-in asked for' });
});

test('with the assurance constraint deleted, verified_claims that do not meet it are left out, in UserInfo too', async () => {
  const { createPersonStore } = await import('../../src/persons/person.store.ts');
  const scopes = 'openid identity_verified identity_assurance_level legal_name';
  const assured = await createTestApp(server.ctx, { type: 'confidential', redirectUris: [REDIRECT], scopes });
  const verity = sdkClient(server, assured);
  const low = createTestPerson(server.ctx);
  createPersonStore(server.ctx.db).update(low, {
    assuranceLevel: 'low',
    identityVerified: true,
    legalGivenName: 'Mallory',
    legalFamilyName: 'Low',
  });
  // As docs/integration.md shows: only high or substantial, else "the whole verified_claims is left out".
  const verifiedClaims = {
    verification: { trust_framework: null, assurance_level: { values: ['high', 'substantial'] } },
    claims: { given_name: null, family_name: null },
  };
  const claims = {
    id_token: { verified_claims: verifiedClaims },
    userinfo: { verified_claims: verifiedClaims },
  };
  const intact = await verity.startSignIn({ sessionId: 's-c', scope: scopes, claims });
  const honest = await verity.handleCallback(
    await approveAs(server, assured, intact.authorizationUrl, low),
    's-c',
  );
  expect(honest.result.claims!.verified_claims).toBeUndefined(); // control: the server applies the constraint

  const started = await verity.startSignIn({ sessionId: 's-c', scope: scopes, claims });
  // The person drops the assurance_level element (and so its constraint) from the request.
  const callback = await approveAs(server, assured, started.authorizationUrl, low, (q) => {
    const c = JSON.parse(q.get('claims')!);
    delete c.id_token.verified_claims.verification.assurance_level;
    delete c.userinfo.verified_claims.verification.assurance_level;
    q.set('claims', JSON.stringify(c));
  });
  const { result } = await verity.handleCallback(callback, 's-c');
  // Left out, as Verity leaves out what does not meet the request.
  expect(result.claims!.verified_claims).toBeUndefined();
  const token = result.tokens.access_token;
  // UserInfo, given the same request, the same; without it, what Verity sent.
  expect((await verity.userinfo(token, result.claims!.sub, claims)).verified_claims).toBeUndefined();
  expect((await verity.userinfo(token, result.claims!.sub)).verified_claims).toMatchObject({
    verification: { trust_framework: expect.any(String) },
    claims: { given_name: 'Mallory' },
  });
});

test('with prompt=login deleted, a sign-in from before this one is refused', async () => {
  const { unix } = await import('../../src/platform/clock.ts');
  const verity = sdkClient(server, app);
  const person = createTestPerson(server.ctx);
  const started = await verity.startSignIn({ sessionId: 's-d', scope: 'openid', prompt: 'login' });
  // Without prompt=login Verity reuses the browser's session (src/identity/flow.ts reusableSignIn),
  // whose auth_time is that of the earlier sign-in.
  const twoHoursAgo = unix(server.clock) - 7200;
  const callback = await approveAs(
    server,
    app,
    started.authorizationUrl,
    person,
    (q) => q.delete('prompt'),
    twoHoursAgo,
  );
  const outcome = await verity.handleCallback(callback, 's-d').then(
    (r) => ({ accepted: true as const, authTime: r.result.claims?.auth_time }),
    (e: Error) => ({ accepted: false as const, error: e.message }),
  );
  expect(outcome).toEqual({
    accepted: false,
    error: 'ID token auth_time is before this sign-in, which asked for prompt=login',
  });
});

describe('evidence asked for: a passport only', () => {
  const DAN = 'psn_sandbox_dan'; // holds a Dutch ID card, no passport
  const scopes = 'openid identity_verified legal_name document_type';
  const passportOnly = {
    verification: {
      trust_framework: null,
      evidence: [{ type: { value: 'document' }, document_details: { type: { values: ['passport'] } } }],
    },
    claims: { given_name: null, family_name: null },
  };
  let documents: TestApp;
  beforeAll(async () => {
    documents = await createTestApp(server.ctx, { type: 'confidential', redirectUris: [REDIRECT], scopes });
    setDocumentPolicy(server.ctx, documents, ['passport', 'id_card'], ['NL', 'DE']);
  });
  const signIn = async (session: string, request: object, tamper?: (c: any) => void) => {
    const verity = sdkClient(server, documents);
    const started = await verity.startSignIn({ sessionId: session, scope: scopes, claims: request as never });
    const callback = await approveAs(server, documents, started.authorizationUrl, DAN, (q) => {
      if (!tamper) return;
      const c = JSON.parse(q.get('claims')!);
      tamper(c);
      q.set('claims', JSON.stringify(c));
    });
    return (await verity.handleCallback(callback, session)).result.claims!.verified_claims;
  };
  const claims = { id_token: { verified_claims: passportOnly } };

  test('an ID card does not meet it, whether the request is intact or its evidence deleted from the URL', async () => {
    expect(await signIn('e-1', claims)).toBeUndefined();
    expect(
      await signIn('e-2', claims, (c) => delete c.id_token.verified_claims.verification.evidence),
    ).toBeUndefined();
    const noDetails = (c: any) => delete c.id_token.verified_claims.verification.evidence[0].document_details;
    expect(await signIn('e-3', claims, noDetails)).toBeUndefined();
  });

  test('what Verity answers to an intact request is kept whole, a claim it left out for its value included', async () => {
    const request = {
      id_token: {
        verified_claims: {
          verification: { trust_framework: null },
          claims: { given_name: { value: 'Someone Else' }, family_name: null },
        },
      },
    };
    expect(await signIn('e-4', request)).toMatchObject({ claims: { family_name: 'Sandbox' } });
  });
});
