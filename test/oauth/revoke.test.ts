import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { setApplicationFields } from '../../src/apps/application.store.ts';
import { createConsentLifecycleStore } from '../../src/consent/lifecycle.store.ts';
import { createDeveloper } from '../../src/developer/developer.store.ts';
import { dispatchDue } from '../../src/webhooks/dispatcher.ts';
import { createEndpoint } from '../../src/webhooks/endpoints.ts';
import { createTestApp, type TestApp } from '../helpers/apps.ts';
import { type TestContext, testContext } from '../helpers/context.ts';
import { bearer, type Issued, issueToken } from '../userinfo/fixtures.ts';
import { LOCALHOST_OK, type Receiver, receiver } from '../webhooks/fixtures.ts';
import { basic, inProcess, REDIRECT, tokenRequest } from './fixtures.ts';

let ctx: TestContext;
let request: ReturnType<typeof inProcess>;
let app: TestApp;
let publicApp: TestApp;
let rx: Receiver | undefined;

beforeEach(async () => {
  ctx = await testContext({ extra: `[rate_limits.oauth]\nrequests = 10000\n${LOCALHOST_OK}` });
  request = inProcess(ctx);
  app = await createTestApp(ctx, {
    type: 'confidential',
    redirectUris: [REDIRECT],
    scopes: 'openid profile',
  });
  publicApp = await createTestApp(ctx, {
    type: 'public',
    redirectUris: [REDIRECT],
    scopes: 'openid profile',
  });
});
afterEach(async () => {
  await rx?.stop();
  rx = undefined;
  ctx.cleanup();
});

const issue = (a: TestApp = app) => issueToken(ctx, a, { scopes: ['openid', 'profile'] });

/** A revocation request; `auth` is HTTP Basic for a confidential client unless given (null: none). */
function revoke(
  body: Record<string, string>,
  opts: { as?: 'json' | 'form'; client?: TestApp; auth?: string | null } = {},
) {
  const client = opts.client ?? app;
  const auth =
    opts.auth === null
      ? undefined
      : (opts.auth ?? (client.clientSecret ? basic(client.clientId, client.clientSecret) : undefined));
  const withId = client.clientSecret ? body : { client_id: client.clientId, ...body };
  return request('/v1/oauth/revoke', tokenRequest(withId, { auth, as: opts.as ?? 'form' }));
}

const userinfo = (t: Issued) => request('/v1/userinfo', bearer(t.accessToken));

async function expectRevoked(t: Issued) {
  for (const path of ['/v1/userinfo', '/v1/userinfo/identity-documents']) {
    const res = await request(path, bearer(t.accessToken));
    expect({ path, status: res.status }).toEqual({ path, status: 401 });
    expect(res.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
  }
}

async function expectOk(res: Response) {
  expect(res.status).toBe(200);
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect(await res.text()).toBe('');
}

async function expectError(res: Response, status: number, error: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('cache-control')).toBe('no-store');
  const body = (await res.json()) as { error: string; error_description: string };
  expect(body.error).toBe(error);
  expect(typeof body.error_description).toBe('string');
}

const revokedAt = (t: Issued) =>
  ctx.db.sql
    .prepare<{ revoked_at: number | null }>('SELECT revoked_at FROM access_tokens WHERE consent_id = ?')
    .get(t.consentId)!.revoked_at;

describe('a client revokes its own access token', () => {
  test('confidential, HTTP Basic, form body: 200 with no body, then UserInfo and documents refuse it', async () => {
    const t = await issue();
    expect((await userinfo(t)).status).toBe(200);
    await expectOk(await revoke({ token: t.accessToken, token_type_hint: 'access_token' }));
    await expectRevoked(t);
    // Only the token ends: the consent stays in force for the next sign-in.
    expect(createConsentLifecycleStore(ctx.db).get(t.consentId)!.status).toBe('active');
  });

  test('client_secret_post in a JSON body works too', async () => {
    const t = await issue();
    const body = { token: t.accessToken, client_id: app.clientId, client_secret: app.clientSecret! };
    await expectOk(await revoke(body, { as: 'json', auth: null }));
    await expectRevoked(t);
  });

  test('a public client names itself with client_id', async () => {
    const t = await issue(publicApp);
    await expectOk(await revoke({ token: t.accessToken }, { client: publicApp }));
    await expectRevoked(t);
  });

  test('an unsupported or unknown token_type_hint is ignored (RFC 7009 §2.1)', async () => {
    const a = await issue();
    await expectOk(await revoke({ token: a.accessToken, token_type_hint: 'refresh_token' }));
    await expectRevoked(a);
    const b = await issue();
    await expectOk(await revoke({ token: b.accessToken, token_type_hint: 'no_such_type' }));
    await expectRevoked(b);
  });

  test('revoking twice answers 200 both times and keeps the first revocation time', async () => {
    const t = await issue();
    await expectOk(await revoke({ token: t.accessToken }));
    const first = revokedAt(t);
    expect(first).toBeNumber();
    ctx.clock.advance(5_000);
    await expectOk(await revoke({ token: t.accessToken }));
    expect(revokedAt(t)).toBe(first);
  });
});

describe('tokens the client may not revoke are left alone, with the same 200', () => {
  test("another client's token is not revoked, nor is one of the other environment", async () => {
    const theirs = await issue(publicApp);
    await expectOk(await revoke({ token: theirs.accessToken }));
    expect((await userinfo(theirs)).status).toBe(200);
    expect(revokedAt(theirs)).toBeNull();
    // The same application's production client is another client too.
    const production = await createTestApp(ctx, {
      type: 'confidential',
      redirectUris: [REDIRECT],
      scopes: 'openid profile',
      environment: 'production',
      applicationId: app.applicationId,
    });
    const sandboxToken = await issue();
    await expectOk(await revoke({ token: sandboxToken.accessToken }, { client: production }));
    expect((await userinfo(sandboxToken)).status).toBe(200);
  });

  test('unknown, malformed and made-up tokens: 200 and nothing changes', async () => {
    const t = await issue();
    // The token's id with another secret names the row but is not the token.
    const forged = `${t.accessToken.slice(0, 35)}${'A'.repeat(43)}`;
    expect(forged).not.toBe(t.accessToken);
    const idToken = (await issue()).idToken!;
    for (const token of ['at_unknown', 'x', forged, idToken, `${t.accessToken}x`])
      await expectOk(await revoke({ token }));
    expect((await userinfo(t)).status).toBe(200);
    expect(revokedAt(t)).toBeNull();
  });

  test('an expired token: 200, nothing to do', async () => {
    const t = await issue();
    ctx.clock.advance(901_000);
    await expectOk(await revoke({ token: t.accessToken }));
    expect(revokedAt(t)).toBeNull();
  });
});

describe('refused requests change nothing', () => {
  test('invalid client: 401 invalid_client with a Basic challenge, and the token stays valid', async () => {
    const t = await issue();
    const attempts = [
      revoke({ token: t.accessToken }, { auth: basic(app.clientId, 'cs_test_wrong') }),
      revoke({ token: t.accessToken }, { auth: basic('cid_test_nobody', app.clientSecret!) }),
      // No credentials at all.
      revoke({ token: t.accessToken }, { auth: null }),
      // A confidential client naming itself without its secret.
      revoke({ token: t.accessToken, client_id: app.clientId }, { auth: null }),
    ];
    for (const res of await Promise.all(attempts)) {
      await expectError(res, 401, 'invalid_client');
      expect(res.headers.get('www-authenticate')).toBe('Basic realm="verity"');
    }
    // A public client presenting a secret is not authenticated either.
    const pub = await issue(publicApp);
    const withSecret = await revoke(
      { token: pub.accessToken },
      { client: publicApp, auth: basic(publicApp.clientId, 'cs_test_x') },
    );
    await expectError(withSecret, 401, 'invalid_client');
    expect((await userinfo(t)).status).toBe(200);
    expect((await userinfo(pub)).status).toBe(200);
  });

  test('no token: 400 invalid_request; so are a repeated parameter and another content type', async () => {
    await expectError(await revoke({}), 400, 'invalid_request');
    await expectError(await revoke({ token: '' }), 400, 'invalid_request');
    const t = await issue();
    const twice = await request('/v1/oauth/revoke', {
      method: 'POST',
      headers: {
        Authorization: basic(app.clientId, app.clientSecret!),
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: `token=${t.accessToken}&token=${t.accessToken}`,
    });
    await expectError(twice, 400, 'invalid_request');
    const text = await request('/v1/oauth/revoke', {
      method: 'POST',
      headers: { Authorization: basic(app.clientId, app.clientSecret!), 'Content-Type': 'text/plain' },
      body: `token=${t.accessToken}`,
    });
    await expectError(text, 400, 'invalid_request');
    expect((await userinfo(t)).status).toBe(200);
  });
});

describe('the token.revoked webhook', () => {
  /** A developer owning `a`, with a sandbox endpoint subscribed to token.revoked on the receiver. */
  async function subscribe(a: TestApp, url: string) {
    const { developerId } = createDeveloper(ctx.db, ctx.clock, {
      email: `dev-${crypto.randomUUID()}@example.com`,
    });
    setApplicationFields(ctx.db, a.applicationId, { ownerDeveloperId: developerId });
    await createEndpoint(ctx, { developerId, environment: 'sandbox' }, a.applicationId, {
      url,
      events: ['token.revoked'],
    });
  }

  const revokedEvents = () =>
    ctx.db.sql
      .prepare<{ n: number }>("SELECT count(*) AS n FROM webhook_events WHERE type = 'token.revoked'")
      .get()!.n;

  test('is delivered once, when a live token is revoked, with its documented payload', async () => {
    rx = receiver();
    await subscribe(app, rx.url);
    const t = await issue();
    await expectOk(await revoke({ token: t.accessToken }));
    expect(await dispatchDue(ctx)).toHaveLength(1);
    expect(rx.received).toHaveLength(1);
    const event = JSON.parse(rx.received[0]!.body);
    expect(rx.received[0]!.headers['service-event-type']).toBe('token.revoked');
    expect(event.type).toBe('token.revoked');
    // The subject is the pairwise one the application knows from the ID token.
    const sub = JSON.parse(atob(t.idToken!.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/'))).sub;
    expect(event.data).toEqual({
      applicationId: app.applicationId,
      environment: 'sandbox',
      sub,
      consentId: t.consentId,
      reason: 'revoked_by_client',
      at: ctx.clock.now().toISOString(),
    });

    // Again, or concurrently: nothing more to tell.
    await Promise.all([1, 2, 3].map(() => revoke({ token: t.accessToken })));
    expect(revokedEvents()).toBe(1);
  });

  test('is not sent for unknown, expired or foreign tokens, nor for refused requests', async () => {
    rx = receiver();
    await subscribe(app, rx.url);
    await subscribe(publicApp, rx.url);
    const theirs = await issue(publicApp);
    const expired = await issue();
    ctx.clock.advance(901_000);
    const fresh = await issue();
    await expectOk(await revoke({ token: 'at_unknown' }));
    await expectOk(await revoke({ token: theirs.accessToken }));
    await expectOk(await revoke({ token: expired.accessToken }));
    await expectError(
      await revoke({ token: fresh.accessToken }, { auth: basic(app.clientId, 'cs_test_wrong') }),
      401,
      'invalid_client',
    );
    expect(revokedEvents()).toBe(0);
    expect(await dispatchDue(ctx)).toHaveLength(0);
    expect(rx.received).toHaveLength(0);
  });
});

test('counted in the OAuth bucket like the token endpoint, at the limit of the client once authenticated', async () => {
  const limited = await testContext({
    extra:
      '[rate_limits.oauth]\nrequests = 2\nwindow = "1m"\n[rate_limits.oauth.environments.production]\nrequests = 5',
  });
  try {
    const call = inProcess(limited);
    const pub = await createTestApp(limited, { type: 'public', redirectUris: [REDIRECT], scopes: 'openid' });
    const form = (body: Record<string, string>, auth?: string) =>
      tokenRequest(body, { as: 'form', ...(auth ? { auth } : {}) });
    const first = await call('/v1/oauth/revoke', form({ client_id: pub.clientId, token: 'at_x' }));
    expect(first.headers.get('x-ratelimit-remaining')).toBe('1');
    // The token endpoint draws from the same bucket.
    await call('/v1/oauth/token', form({ client_id: pub.clientId }));
    const over = await call('/v1/oauth/revoke', form({ client_id: pub.clientId, token: 'at_x' }));
    expect(over.status).toBe(429);
    expect(over.headers.get('retry-after')).toBe('60');
    expect(((await over.json()) as { error: string }).error).toBe('RATE_LIMIT_EXCEEDED');
    // An authenticated production client counts at its environment's limit, from another address.
    const prod = await createTestApp(limited, {
      type: 'confidential',
      redirectUris: [REDIRECT],
      scopes: 'openid',
      environment: 'production',
    });
    const auth = basic(prod.clientId, prod.clientSecret!);
    const res = await call('/v1/oauth/revoke', form({ token: 'at_x' }, auth), '192.0.2.40');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-limit')).toBe('5');
  } finally {
    limited.cleanup();
  }
});
