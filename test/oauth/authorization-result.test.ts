import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { sha256Hex } from '../../src/crypto/tokens.ts';
import { subjectFor } from '../../src/keys/pairwise.ts';
import {
  approveAuthorization,
  loadAuthorizationRequest,
  rejectAuthorization,
  updateAuthorizationRequest,
} from '../../src/oauth/authorization-result.ts';
import { createAuthorizationRequest, validateAuthorizeRequest } from '../../src/oauth/authorize-request.ts';
import { deleteExpiredOAuthState } from '../../src/oauth/jobs.ts';
import { createTestApp, type TestApp } from '../helpers/apps.ts';
import { type TestContext, testContext } from '../helpers/context.ts';
import {
  basic,
  createTestConsent,
  createTestPerson,
  inProcess,
  mintCode,
  pkcePair,
  REDIRECT,
  tokenRequest,
} from './fixtures.ts';

let ctx: TestContext;
let app: TestApp;

beforeEach(async () => {
  ctx = await testContext();
  app = await createTestApp(ctx, {
    type: 'confidential',
    redirectUris: [REDIRECT],
    scopes: ['openid', 'profile', 'email'],
    name: 'Acme Bank',
    subscribed: true,
  });
});
afterEach(() => ctx.cleanup());

const now = () => Math.floor(ctx.clock.now().getTime() / 1000);

async function newRequest(extra: Record<string, string> = {}) {
  const { challenge } = await pkcePair();
  const params = new URLSearchParams({
    response_type: 'code',
    client_id: app.clientId,
    redirect_uri: REDIRECT,
    scope: 'openid email',
    state: 'state-1',
    nonce: 'nonce-1',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    purpose: 'Open an account',
    ...extra,
  });
  return { id: createAuthorizationRequest(ctx, validateAuthorizeRequest(ctx, params)), challenge };
}

function grantFor(personId: string, consentId: string) {
  return {
    personId,
    consentId,
    authTime: now() - 10,
    acr: 'substantial',
    amr: ['pwd', 'face'],
    livenessVerified: true,
    faceMatchVerified: false,
  };
}

const events = (type: string) =>
  ctx.db.sql
    .prepare<{ body: string }>('SELECT body FROM webhook_events WHERE type = ? ORDER BY created_at')
    .all(type)
    .map((r) => JSON.parse(r.body));

describe('loadAuthorizationRequest', () => {
  test('gives the request with its application', async () => {
    const { id, challenge } = await newRequest({ display: 'popup', prompt: 'none', max_age: '60' });
    expect(loadAuthorizationRequest(ctx, id)).toMatchObject({
      id,
      status: 'pending',
      applicationId: app.applicationId,
      applicationName: 'Acme Bank',
      applicationType: 'confidential',
      environment: 'sandbox',
      environmentId: app.environmentId,
      clientId: app.clientId,
      redirectUri: REDIRECT,
      scopes: ['openid', 'email'],
      state: 'state-1',
      nonce: 'nonce-1',
      codeChallenge: challenge,
      purpose: 'Open an account',
      display: 'popup',
      prompt: 'none',
      maxAge: 60,
      amr: [],
    });
  });

  test('is undefined for unknown, expired and finished requests', async () => {
    expect(loadAuthorizationRequest(ctx, 'ar_nope')).toBeUndefined();
    const a = await newRequest();
    ctx.clock.advance(15 * 60_000);
    expect(loadAuthorizationRequest(ctx, a.id)).toBeUndefined();
    const b = await newRequest();
    rejectAuthorization(ctx, b.id, { error: 'access_denied', description: 'No', decision: 'denied' });
    expect(loadAuthorizationRequest(ctx, b.id)).toBeUndefined();
  });

  test('progress of an open request can be recorded', async () => {
    const { id } = await newRequest();
    const personId = createTestPerson(ctx);
    expect(
      updateAuthorizationRequest(ctx, id, {
        status: 'authenticated',
        personId,
        authTime: now(),
        amr: ['pwd'],
      }),
    ).toBe(true);
    expect(loadAuthorizationRequest(ctx, id)).toMatchObject({
      status: 'authenticated',
      personId,
      amr: ['pwd'],
    });
  });
});

describe('approveAuthorization', () => {
  test('mints a code bound to the request and the grant, completes the request and records the event', async () => {
    const { id, challenge } = await newRequest();
    const personId = createTestPerson(ctx);
    const consentId = createTestConsent(ctx, app, personId, ['openid', 'email']);
    const grant = grantFor(personId, consentId);
    const url = new URL(await approveAuthorization(ctx, id, grant));
    expect(`${url.origin}${url.pathname}`).toBe(REDIRECT);
    expect(url.searchParams.get('state')).toBe('state-1');
    expect(url.searchParams.get('iss')).toBe(ctx.config.server.base_url);
    const code = url.searchParams.get('code')!;
    expect(code).toMatch(/^[A-Za-z0-9_-]{43,}$/);

    const row = ctx.db.sql.prepare<any>('SELECT * FROM authorization_codes').get()!;
    expect(row).toMatchObject({
      code_hash: await sha256Hex(code),
      environment_id: app.environmentId,
      client_id: app.clientId,
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      nonce: 'nonce-1',
      consent_id: consentId,
      person_id: personId,
      auth_time: grant.authTime,
      acr: 'substantial',
      liveness_verified: 1,
      face_match_verified: 0,
      used_at: null,
    });
    expect(JSON.parse(row.scopes)).toEqual(['openid', 'email']);
    expect(JSON.parse(row.amr)).toEqual(['pwd', 'face']);
    expect(row.expires_at - row.created_at).toBe(300);

    const status = ctx.db.sql.prepare<any>('SELECT status FROM authorization_requests WHERE id = ?').get(id)!;
    expect(status.status).toBe('completed');

    const [event] = events('claim_access.completed');
    expect(event.data).toEqual({
      applicationId: app.applicationId,
      environment: 'sandbox',
      decision: 'approved',
      sub: await subjectFor(ctx, app.applicationId, personId),
      scopes: ['openid', 'email'],
    });
  });

  test('a request completes only once', async () => {
    const { id } = await newRequest();
    const personId = createTestPerson(ctx);
    const consentId = createTestConsent(ctx, app, personId, ['openid', 'email']);
    const results = await Promise.allSettled([
      approveAuthorization(ctx, id, grantFor(personId, consentId)),
      approveAuthorization(ctx, id, grantFor(personId, consentId)),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled').length).toBe(1);
    expect(() =>
      rejectAuthorization(ctx, id, { error: 'access_denied', description: 'x', decision: 'denied' }),
    ).toThrow();
    expect(ctx.db.sql.prepare<any>('SELECT count(*) AS n FROM authorization_codes').get()!.n).toBe(1);
    expect(events('claim_access.completed').length).toBe(1);
  });

  test('an expired request cannot be approved', async () => {
    const { id } = await newRequest();
    const personId = createTestPerson(ctx);
    const consentId = createTestConsent(ctx, app, personId, ['openid', 'email']);
    ctx.clock.advance(15 * 60_000);
    await expect(approveAuthorization(ctx, id, grantFor(personId, consentId))).rejects.toThrow();
    expect(ctx.db.sql.prepare<any>('SELECT count(*) AS n FROM authorization_codes').get()!.n).toBe(0);
  });

  test('a person of the other environment cannot complete a request', async () => {
    const { id } = await newRequest();
    const production = createTestPerson(ctx, 'production');
    const consentId = createTestConsent(ctx, app, production, ['openid', 'email']);
    await expect(approveAuthorization(ctx, id, grantFor(production, consentId))).rejects.toThrow();
    expect(loadAuthorizationRequest(ctx, id)?.status).toBe('pending');
  });

  test("another person's or another application's consent is not accepted", async () => {
    const { id } = await newRequest();
    const personId = createTestPerson(ctx);
    const other = createTestPerson(ctx);
    const othersConsent = createTestConsent(ctx, app, other, ['openid', 'email']);
    await expect(approveAuthorization(ctx, id, grantFor(personId, othersConsent))).rejects.toThrow();
    const otherApp = await createTestApp(ctx, {
      type: 'public',
      redirectUris: [REDIRECT],
      scopes: ['openid', 'email'],
    });
    const wrongApp = createTestConsent(ctx, otherApp, personId, ['openid', 'email']);
    await expect(approveAuthorization(ctx, id, grantFor(personId, wrongApp))).rejects.toThrow();
    // Nothing was committed: the request is still open.
    expect(loadAuthorizationRequest(ctx, id)?.status).toBe('pending');
    expect(events('claim_access.completed').length).toBe(0);
  });
});

describe('rejectAuthorization', () => {
  test('ends the request with an error for the application and records the decision', async () => {
    const { id } = await newRequest();
    const url = new URL(
      rejectAuthorization(ctx, id, {
        error: 'access_denied',
        description: 'Face assurance failed.',
        decision: 'failed',
        reason: 'face_match_failed',
      }),
    );
    expect(`${url.origin}${url.pathname}`).toBe(REDIRECT);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      error: 'access_denied',
      error_description: 'Face assurance failed.',
      state: 'state-1',
      iss: ctx.config.server.base_url,
    });
    expect(
      ctx.db.sql.prepare<any>('SELECT status FROM authorization_requests WHERE id = ?').get(id)!.status,
    ).toBe('failed');
    expect(events('claim_access.completed')[0].data).toEqual({
      applicationId: app.applicationId,
      environment: 'sandbox',
      decision: 'failed',
      reason: 'face_match_failed',
      scopes: ['openid', 'email'],
    });
  });

  test('prompt=none answers (login_required) are recorded as denied', async () => {
    const { id } = await newRequest({ prompt: 'none' });
    const url = new URL(
      rejectAuthorization(ctx, id, {
        error: 'login_required',
        description: 'Sign-in needed.',
        decision: 'denied',
      }),
    );
    expect(url.searchParams.get('error')).toBe('login_required');
    const [event] = events('claim_access.completed');
    expect(event.data.decision).toBe('denied');
    expect(event.data.reason).toBeUndefined();
    expect(() =>
      rejectAuthorization(ctx, id, { error: 'x', description: 'y', decision: 'denied' }),
    ).toThrow();
    expect(events('claim_access.completed').length).toBe(1);
  });
});

test('cleanup removes expired requests and tokens, and keeps used codes while their tokens live', async () => {
  const request = inProcess(ctx);
  const m = await mintCode(ctx, app);
  const res = await request(
    '/v1/oauth/token',
    tokenRequest(
      { grant_type: 'authorization_code', code: m.code, redirect_uri: REDIRECT, code_verifier: m.verifier },
      { auth: basic(app.clientId, app.clientSecret!) },
    ),
  );
  expect(res.status).toBe(200);
  await newRequest();
  const count = (table: string) =>
    ctx.db.sql.prepare<{ n: number }>(`SELECT count(*) AS n FROM ${table}`).get()!.n;
  const t0 = now();
  deleteExpiredOAuthState(ctx, t0 + 899);
  expect([count('authorization_requests'), count('authorization_codes'), count('access_tokens')]).toEqual([
    2, 1, 1,
  ]);
  deleteExpiredOAuthState(ctx, t0 + 900);
  expect([count('authorization_requests'), count('access_tokens')]).toEqual([0, 0]);
  expect(count('authorization_codes')).toBe(1);
  deleteExpiredOAuthState(ctx, t0 + 1200);
  expect(count('authorization_codes')).toBe(0);
});
