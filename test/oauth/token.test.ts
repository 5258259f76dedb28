import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { revokeSecrets } from '../../src/apps/application.store.ts';
import { updateApplication } from '../../src/apps/registration.ts';
import { createConsentLifecycleStore } from '../../src/consent/lifecycle.store.ts';
import { sha256Hex } from '../../src/crypto/tokens.ts';
import { createPersonStore } from '../../src/persons/person.store.ts';
import { unix } from '../../src/platform/clock.ts';
import { createTestApp, type TestApp } from '../helpers/apps.ts';
import { type TestContext, testContext } from '../helpers/context.ts';
import { basic, inProcess, type Minted, mintCode, REDIRECT, tokenRequest } from './fixtures.ts';

let ctx: TestContext;
let request: ReturnType<typeof inProcess>;
let app: TestApp;
let publicApp: TestApp;

beforeEach(async () => {
  ctx = await testContext({ extra: '[rate_limits.oauth]\nrequests = 10000' });
  request = inProcess(ctx);
  app = await createTestApp(ctx, {
    type: 'confidential',
    redirectUris: [REDIRECT],
    scopes: ['openid', 'profile', 'email'],
    subscribed: true,
  });
  publicApp = await createTestApp(ctx, {
    type: 'public',
    redirectUris: [REDIRECT],
    scopes: ['openid', 'profile'],
  });
});
afterEach(() => ctx.cleanup());

const exchangeBody = (m: Minted, over: Record<string, unknown> = {}) => ({
  grant_type: 'authorization_code',
  code: m.code,
  redirect_uri: m.redirectUri,
  ...(m.verifier ? { code_verifier: m.verifier } : {}),
  ...over,
});

const exchange = (m: Minted, over: Record<string, unknown> = {}, a: TestApp = app, as?: 'json' | 'form') =>
  request(
    '/v1/oauth/token',
    tokenRequest(exchangeBody(m, over), {
      auth: a.clientSecret ? basic(a.clientId, a.clientSecret) : undefined,
      as,
    }),
  );

async function expectError(res: Response, status: number, error: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('cache-control')).toBe('no-store');
  const body = (await res.json()) as { error: string; error_description: string };
  expect(body.error).toBe(error);
  expect(typeof body.error_description).toBe('string');
  return body;
}

const tokenRow = async (accessToken: string) =>
  ctx.db.sql
    .prepare<any>('SELECT * FROM access_tokens WHERE token_hash = ?')
    .get(await sha256Hex(accessToken));

describe('a successful exchange', () => {
  test('answers the interface token response, with no-store and no refresh token', async () => {
    const m = await mintCode(ctx, app, { scopes: ['openid', 'profile'] });
    const res = await exchange(m);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = (await res.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual([
      'access_token',
      'expires_in',
      'id_token',
      'scope',
      'token_type',
    ]);
    expect(body.access_token).toMatch(/^at_[0-9a-f]{32}[A-Za-z0-9_-]{43}$/);
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 900, scope: 'openid profile' });
    expect(body.refresh_token).toBeUndefined();
  });

  test('the access token is stored only as its hash, bound to consent, person, scopes and face results', async () => {
    const m = await mintCode(ctx, app, {
      scopes: ['profile', 'email'],
      grant: { acr: 'substantial', livenessVerified: true, faceMatchVerified: false },
    });
    const res = await exchange(m, {}, app, 'form');
    const body = (await res.json()) as { access_token: string; id_token?: string };
    expect(body.id_token).toBeUndefined();
    const all = JSON.stringify(ctx.db.sql.prepare('SELECT * FROM access_tokens').all());
    expect(all).not.toContain(body.access_token);
    const row = await tokenRow(body.access_token);
    expect(row).toMatchObject({
      consent_id: m.consentId,
      person_id: m.personId,
      environment_id: app.environmentId,
      acr: 'substantial',
      liveness_verified: 1,
      face_match_verified: 0,
      revoked_at: null,
    });
    expect(JSON.parse(row.scopes)).toEqual(['profile', 'email']);
  });

  test('codes are stored only as their hash', async () => {
    const m = await mintCode(ctx, app);
    const rows = JSON.stringify(ctx.db.sql.prepare('SELECT * FROM authorization_codes').all());
    expect(rows).not.toContain(m.code);
    expect(rows).toContain(await sha256Hex(m.code));
    expect(m.code.length).toBeGreaterThanOrEqual(43);
  });

  test('client_secret_post in a form body works (what standard libraries send)', async () => {
    const m = await mintCode(ctx, app);
    const res = await request(
      '/v1/oauth/token',
      tokenRequest(exchangeBody(m, { client_id: app.clientId, client_secret: app.clientSecret }), {
        as: 'form',
      }),
    );
    expect(res.status).toBe(200);
  });

  test('a public client authenticates with client_id and PKCE only', async () => {
    const m = await mintCode(ctx, publicApp);
    const res = await exchange(m, { client_id: publicApp.clientId }, publicApp);
    expect(res.status).toBe(200);
  });

  test('the exchange records oauth.authorization.completed with its payload', async () => {
    const m = await mintCode(ctx, app, {
      scopes: ['openid', 'email'],
      grant: { acr: 'high', authTime: 1780000000 },
    });
    expect((await exchange(m)).status).toBe(200);
    const events = ctx.db.sql
      .prepare<{ body: string }>(
        "SELECT body FROM webhook_events WHERE type = 'oauth.authorization.completed'",
      )
      .all();
    expect(events.length).toBe(1);
    const event = JSON.parse(events[0]!.body);
    expect(event.data).toEqual({
      applicationId: app.applicationId,
      environment: 'sandbox',
      sub: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      scopes: ['openid', 'email'],
      authTime: 1780000000,
      acr: 'high',
    });
    expect(event.data.sub).not.toContain(m.personId);
  });
});

describe('codes are single use', () => {
  test('a replayed code is refused and the token issued from it is revoked', async () => {
    const m = await mintCode(ctx, app);
    const first = (await (await exchange(m)).json()) as { access_token: string };
    await expectError(await exchange(m), 400, 'invalid_grant');
    expect((await tokenRow(first.access_token)).revoked_at).not.toBeNull();
  });

  test('the code expires after 5 minutes', async () => {
    const early = await mintCode(ctx, app);
    ctx.clock.advance(299_000);
    expect((await exchange(early)).status).toBe(200);
    const late = await mintCode(ctx, app);
    ctx.clock.advance(300_000);
    await expectError(await exchange(late), 400, 'invalid_grant');
  });

  test('the access token expires 15 minutes after issue', async () => {
    const m = await mintCode(ctx, app);
    const body = (await (await exchange(m)).json()) as { access_token: string };
    const row = await tokenRow(body.access_token);
    expect(row.expires_at - row.created_at).toBe(900);
    expect(row.created_at).toBe(Math.floor(ctx.clock.now().getTime() / 1000));
  });

  test('the code dies if consent is revoked before the exchange', async () => {
    const m = await mintCode(ctx, app);
    createConsentLifecycleStore(ctx.db).end(m.consentId, 'revoked', 'revoked_by_person', unix(ctx.clock));
    await expectError(await exchange(m), 400, 'invalid_grant');
  });

  test('the code dies if the person is disabled before the exchange', async () => {
    const m = await mintCode(ctx, app);
    createPersonStore(ctx.db).setStatus(m.personId, 'disabled', unix(ctx.clock));
    await expectError(await exchange(m), 400, 'invalid_grant');
  });

  test('scopes taken from the application since the code was issued are not granted', async () => {
    const m = await mintCode(ctx, app, { scopes: ['openid', 'profile', 'email'] });
    // Without openid there is no ID token either.
    updateApplication(ctx.db, ctx.clock, app.applicationId, { scopes: ['email'], actor: 'cli' });
    const res = await exchange(m);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { scope: string; id_token?: string; access_token: string };
    expect(body.scope).toBe('email');
    expect(body.id_token).toBeUndefined();
    expect(JSON.parse((await tokenRow(body.access_token)).scopes)).toEqual(['email']);
    const completed = ctx.db.sql
      .prepare<{ body: string }>(
        "SELECT body FROM webhook_events WHERE type = 'oauth.authorization.completed'",
      )
      .all();
    expect(completed.map((r) => JSON.parse(r.body).data.scopes)).toEqual([['email']]);
  });

  test('a code none of whose scopes the application may still ask for dies', async () => {
    const m = await mintCode(ctx, app, { scopes: ['profile'] });
    updateApplication(ctx.db, ctx.clock, app.applicationId, { scopes: ['openid', 'email'], actor: 'cli' });
    await expectError(await exchange(m), 400, 'invalid_grant');
  });

  test('an unknown code', async () => {
    const m = await mintCode(ctx, app);
    await expectError(await exchange({ ...m, code: `${m.code}x` }), 400, 'invalid_grant');
  });

  test("a code naming a real code's id with another secret is refused and burns nothing", async () => {
    const m = await mintCode(ctx, app);
    const forged = `${m.code.slice(0, 32)}${'A'.repeat(43)}`;
    await expectError(await exchange({ ...m, code: forged }), 400, 'invalid_grant');
    expect((await exchange(m)).status).toBe(200);
  });
});

describe('a failed presentation burns the code', () => {
  async function expectBurned(m: Minted) {
    await expectError(await exchange(m), 400, 'invalid_grant');
  }

  test('wrong verifier', async () => {
    const m = await mintCode(ctx, app);
    await expectError(await exchange(m, { code_verifier: 'a'.repeat(64) }), 400, 'invalid_grant');
    await expectBurned(m);
  });

  test('verifier of the wrong length or alphabet', async () => {
    const m = await mintCode(ctx, app);
    await expectError(await exchange(m, { code_verifier: 'short' }), 400, 'invalid_grant');
    const m2 = await mintCode(ctx, app);
    await expectError(await exchange(m2, { code_verifier: `${m2.verifier}!!!` }), 400, 'invalid_grant');
  });

  test('PKCE downgrade: a challenge at authorize but no verifier at the token endpoint', async () => {
    const m = await mintCode(ctx, app);
    await expectError(await exchange({ ...m, verifier: undefined }), 400, 'invalid_grant');
    await expectBurned(m);
  });

  test('PKCE downgrade: no challenge at authorize but a verifier at the token endpoint', async () => {
    const optOut = await createTestApp(ctx, {
      type: 'confidential',
      redirectUris: [REDIRECT],
      scopes: ['openid'],
      pkce: 'public-only',
    });
    const m = await mintCode(ctx, optOut, { scopes: ['openid'], pkce: false });
    await expectError(await exchange(m, { code_verifier: 'b'.repeat(43) }, optOut), 400, 'invalid_grant');
    await expectError(await exchange(m, {}, optOut), 400, 'invalid_grant');
    // Without any verifier the opted-out application exchanges normally.
    const ok = await mintCode(ctx, optOut, { scopes: ['openid'], pkce: false });
    expect((await exchange(ok, {}, optOut)).status).toBe(200);
  });

  test('a different redirect_uri', async () => {
    const m = await mintCode(ctx, app);
    await expectError(await exchange(m, { redirect_uri: `${REDIRECT}/` }), 400, 'invalid_grant');
    await expectBurned(m);
  });
});

describe("another client's presentation is refused and burns nothing", () => {
  test('a confidential client, correctly authenticated', async () => {
    const other = await createTestApp(ctx, {
      type: 'confidential',
      redirectUris: [REDIRECT],
      scopes: ['openid'],
    });
    const m = await mintCode(ctx, app);
    await expectError(await exchange(m, {}, other), 400, 'invalid_grant');
    expect((await exchange(m)).status).toBe(200);
  });

  test("a public client, which needs no secret, cannot revoke a confidential client's token", async () => {
    const other = await createTestApp(ctx, { type: 'public', redirectUris: [REDIRECT], scopes: ['openid'] });
    const m = await mintCode(ctx, app);
    const ok = await exchange(m);
    expect(ok.status).toBe(200);
    const { access_token } = (await ok.json()) as { access_token: string };
    await expectError(await exchange(m, { client_id: other.clientId }, other), 400, 'invalid_grant');
    const userinfo = await request('/v1/userinfo', { headers: { Authorization: `Bearer ${access_token}` } });
    expect(userinfo.status).toBe(200);
    // Its own client's replay still burns the code and revokes the token.
    await expectError(await exchange(m), 400, 'invalid_grant');
    const after = await request('/v1/userinfo', { headers: { Authorization: `Bearer ${access_token}` } });
    expect(after.status).toBe(401);
  });
});

describe('client authentication', () => {
  test('Basic credentials with ":", "+", "%" and spaces in the secret are form-decoded', async () => {
    const secret = 'cs_test_a:b+c%2Fd e%zz+';
    const odd = await createTestApp(ctx, {
      type: 'confidential',
      redirectUris: [REDIRECT],
      scopes: ['openid'],
      clientSecret: secret,
    });
    const m = await mintCode(ctx, odd, { scopes: ['openid'] });
    const res = await request(
      '/v1/oauth/token',
      tokenRequest(exchangeBody(m), { auth: basic(odd.clientId, secret) }),
    );
    expect(res.status).toBe(200);
    // Not form-encoding the secret makes '+' a space and '%2F' a '/': a different secret.
    const raw = `Basic ${btoa(`${odd.clientId}:${secret}`)}`;
    const m2 = await mintCode(ctx, odd, { scopes: ['openid'] });
    await expectError(
      await request('/v1/oauth/token', tokenRequest(exchangeBody(m2), { auth: raw })),
      401,
      'invalid_client',
    );
  });

  test('wrong secret: 401 invalid_client with WWW-Authenticate', async () => {
    const m = await mintCode(ctx, app);
    const res = await request(
      '/v1/oauth/token',
      tokenRequest(exchangeBody(m), { auth: basic(app.clientId, `${app.clientSecret}x`) }),
    );
    await expectError(res, 401, 'invalid_client');
    expect(res.headers.get('www-authenticate')).toBe('Basic realm="verity"');
    // Failed authentication does not touch the code.
    expect((await exchange(m)).status).toBe(200);
  });

  test('unknown client, missing authentication, malformed Basic', async () => {
    const m = await mintCode(ctx, app);
    const unknown = await request(
      '/v1/oauth/token',
      tokenRequest(exchangeBody(m), { auth: basic('cid_test_x', 'y') }),
    );
    expect(unknown.headers.get('www-authenticate')).toContain('Basic');
    await expectError(unknown, 401, 'invalid_client');
    await expectError(
      await request('/v1/oauth/token', tokenRequest(exchangeBody(m, { client_id: app.clientId }))),
      401,
      'invalid_client',
    );
    await expectError(await request('/v1/oauth/token', tokenRequest(exchangeBody(m))), 401, 'invalid_client');
    await expectError(
      await request('/v1/oauth/token', tokenRequest(exchangeBody(m), { auth: 'Basic %%%' })),
      401,
      'invalid_client',
    );
    await expectError(
      await request('/v1/oauth/token', tokenRequest(exchangeBody(m), { auth: `Basic ${btoa('no-colon')}` })),
      401,
      'invalid_client',
    );
    await expectError(
      await request('/v1/oauth/token', tokenRequest(exchangeBody(m), { auth: 'Bearer abc' })),
      401,
      'invalid_client',
    );
    // Credentials are UTF-8: bytes that are not are a malformed header, UTF-8 naming no client is unknown.
    const describe = async (raw: string) => {
      const res = await request(
        '/v1/oauth/token',
        tokenRequest(exchangeBody(m), { auth: `Basic ${btoa(raw)}` }),
      );
      expect(res.status).toBe(401);
      return ((await res.json()) as { error_description: string }).error_description;
    };
    expect(await describe('\xff\xfe:secret')).toBe('The Authorization header is not valid HTTP Basic.');
    const utf8 = String.fromCharCode(...new TextEncoder().encode('cïd_test_ü:sécret'));
    expect(await describe(utf8)).toBe('Client authentication failed.');
  });

  test('both methods at once is invalid_request', async () => {
    const m = await mintCode(ctx, app);
    await expectError(
      await request(
        '/v1/oauth/token',
        tokenRequest(exchangeBody(m, { client_secret: app.clientSecret }), {
          auth: basic(app.clientId, app.clientSecret!),
        }),
      ),
      400,
      'invalid_request',
    );
  });

  test('a client_id in the body that differs from the Basic one is refused', async () => {
    const m = await mintCode(ctx, app);
    await expectError(await exchange(m, { client_id: publicApp.clientId }), 400, 'invalid_request');
  });

  test('a secret of the other environment is rejected like an unknown one', async () => {
    const prod = await createTestApp(ctx, {
      type: 'confidential',
      redirectUris: [REDIRECT],
      scopes: ['openid'],
      environment: 'production',
      applicationId: app.applicationId,
    });
    expect(prod.clientSecret).toStartWith('cs_live_');
    const m = await mintCode(ctx, app);
    await expectError(
      await request(
        '/v1/oauth/token',
        tokenRequest(exchangeBody(m), { auth: basic(prod.clientId, app.clientSecret!) }),
      ),
      401,
      'invalid_client',
    );
    await expectError(
      await request(
        '/v1/oauth/token',
        tokenRequest(exchangeBody(m), { auth: basic(app.clientId, prod.clientSecret!) }),
      ),
      401,
      'invalid_client',
    );
  });

  test('a revoked secret no longer authenticates', async () => {
    const m = await mintCode(ctx, app);
    revokeSecrets(ctx.db, ctx.clock, app.environmentId);
    await expectError(await exchange(m), 401, 'invalid_client');
  });

  test('a public client may not present a secret, and may not skip PKCE', async () => {
    const m = await mintCode(ctx, publicApp);
    await expectError(
      await request(
        '/v1/oauth/token',
        tokenRequest(exchangeBody(m), { auth: basic(publicApp.clientId, 'anything') }),
      ),
      401,
      'invalid_client',
    );
    await expectError(
      await exchange({ ...m, verifier: undefined }, { client_id: publicApp.clientId }, publicApp),
      400,
      'invalid_grant',
    );
  });
});

describe('request bodies', () => {
  const post = (body: string, contentType?: string, auth = basic(app.clientId, app.clientSecret!)) =>
    request('/v1/oauth/token', {
      method: 'POST',
      headers: { ...(contentType ? { 'Content-Type': contentType } : {}), Authorization: auth },
      body,
    });

  test('JSON and form bodies are both accepted', async () => {
    const a = await mintCode(ctx, app);
    expect((await exchange(a, {}, app, 'json')).status).toBe(200);
    const b = await mintCode(ctx, app);
    expect((await exchange(b, {}, app, 'form')).status).toBe(200);
    const c = await mintCode(ctx, app);
    const charset = await post(JSON.stringify(exchangeBody(c)), 'application/json; charset=utf-8');
    expect(charset.status).toBe(200);
  });

  test('duplicate keys are refused in form bodies', async () => {
    const m = await mintCode(ctx, app);
    const body = `${new URLSearchParams(exchangeBody(m) as Record<string, string>)}&code=other`;
    await expectError(await post(body, 'application/x-www-form-urlencoded'), 400, 'invalid_request');
  });

  test('duplicate keys are refused in JSON bodies, however they are spelt', async () => {
    const m = await mintCode(ctx, app);
    const json = JSON.stringify(exchangeBody(m));
    await expectError(
      await post(`${json.slice(0, -1)},"code":"other"}`, 'application/json'),
      400,
      'invalid_request',
    );
    await expectError(
      await post(`${json.slice(0, -1)},"\\u0063ode":"other"}`, 'application/json'),
      400,
      'invalid_request',
    );
    // Nothing was consumed by the refused requests.
    expect((await exchange(m)).status).toBe(200);
  });

  test('values must be strings', async () => {
    const m = await mintCode(ctx, app);
    for (const v of [123, true, null, ['x'], { a: 'b' }]) {
      await expectError(
        await post(JSON.stringify(exchangeBody(m, { code: v })), 'application/json'),
        400,
        'invalid_request',
      );
    }
    await expectError(await post('["grant_type"]', 'application/json'), 400, 'invalid_request');
    await expectError(await post('{"grant_type":', 'application/json'), 400, 'invalid_request');
  });

  test('other content types are refused', async () => {
    const m = await mintCode(ctx, app);
    const json = JSON.stringify(exchangeBody(m));
    await expectError(await post(json, 'text/plain'), 400, 'invalid_request');
    await expectError(await post(json, 'multipart/form-data; boundary=x'), 400, 'invalid_request');
    await expectError(await post(json), 400, 'invalid_request');
  });

  test('grant_type: required, and only authorization_code', async () => {
    const m = await mintCode(ctx, app);
    await expectError(await exchange(m, { grant_type: 'refresh_token' }), 400, 'unsupported_grant_type');
    await expectError(await exchange(m, { grant_type: 'client_credentials' }), 400, 'unsupported_grant_type');
    await expectError(await exchange(m, { grant_type: undefined }), 400, 'invalid_request');
    await expectError(await exchange(m, { code: undefined }), 400, 'invalid_request');
    await expectError(await exchange(m, { redirect_uri: undefined }), 400, 'invalid_request');
  });
});

test('an oversized body is refused before it is parsed', async () => {
  const res = await request('/v1/oauth/token', {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: `grant_type=authorization_code&code=${'a'.repeat(70_000)}`,
  });
  expect(res.status).toBe(413);
  expect(((await res.json()) as { error: string }).error).toBe('invalid_request');
});

test('an oversized body is refused by its declared length, and when it streams without one', async () => {
  const body = `grant_type=authorization_code&code=${'a'.repeat(70_000)}`;
  const declared = await request('/v1/oauth/token', {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': String(body.length) },
    body,
  });
  expect(declared.status).toBe(413);
  const chunks = new ReadableStream({
    start(controller) {
      for (let i = 0; i < 10; i++)
        controller.enqueue(new TextEncoder().encode(body.slice(i * 7000, (i + 1) * 7000)));
      controller.close();
    },
  });
  const streamed = await request('/v1/oauth/token', {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: chunks,
  });
  expect(streamed.status).toBe(413);
  expect(((await streamed.json()) as { error: string }).error).toBe('invalid_request');
});
