import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { setApplicationFields } from '../../src/apps/application.store.ts';
import { createTestApp, type TestApp } from '../helpers/apps.ts';
import { type TestContext, testContext } from '../helpers/context.ts';
import { inProcess, pkcePair, REDIRECT } from './fixtures.ts';

let ctx: TestContext;
let request: ReturnType<typeof inProcess>;
let confidential: TestApp;
let publicApp: TestApp;
let challenge: string;

const SCOPES = ['openid', 'profile', 'email', 'age_over_18', 'document_number_full'];

beforeEach(async () => {
  ctx = await testContext({ extra: '[rate_limits.oauth]\nrequests = 10000' });
  request = inProcess(ctx);
  confidential = await createTestApp(ctx, { type: 'confidential', redirectUris: [REDIRECT], scopes: SCOPES });
  publicApp = await createTestApp(ctx, {
    type: 'public',
    redirectUris: [REDIRECT, 'https://app.example/cb?tenant=1'],
    scopes: SCOPES,
  });
  challenge = (await pkcePair()).challenge;
});
afterEach(() => ctx.cleanup());

function params(over: Record<string, string | undefined> = {}, app: TestApp = confidential) {
  const base: Record<string, string | undefined> = {
    response_type: 'code',
    client_id: app.clientId,
    redirect_uri: REDIRECT,
    scope: 'openid profile',
    state: 'st-123',
    nonce: 'n-456',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...over,
  };
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(base)) if (v !== undefined) p.append(k, v);
  return p;
}

const authorize = (p: URLSearchParams | string) =>
  request(`/v1/oauth/authorize?${typeof p === 'string' ? p : p.toString()}`);

/** Asserts an error redirect to the callback and returns its query. */
async function expectErrorRedirect(res: Response, error: string, base = REDIRECT) {
  expect(res.status).toBe(303);
  const location = new URL(res.headers.get('location')!);
  expect(`${location.origin}${location.pathname}`).toBe(new URL(base).origin + new URL(base).pathname);
  expect(location.searchParams.get('error')).toBe(error);
  expect(location.searchParams.get('error_description')).toBeTruthy();
  expect(location.searchParams.get('iss')).toBe(ctx.config.server.base_url);
  return location.searchParams;
}

async function expectErrorPage(res: Response) {
  expect(res.status).toBe(400);
  expect(res.headers.get('location')).toBeNull();
  expect(res.headers.get('content-type')).toContain('text/html');
  const requestId = res.headers.get('x-request-id')!;
  expect(requestId).toBeTruthy();
  const html = await res.text();
  expect(html).toContain(requestId);
  expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  expect(res.headers.get('x-frame-options')).toBe('DENY');
  return html;
}

describe('a valid authorize request', () => {
  test('is stored and the browser is sent to the identity experience', async () => {
    const res = await authorize(
      params({
        purpose: 'Open an account',
        display: 'popup',
        prompt: 'login consent',
        max_age: '600',
        login_hint: 'ada@example.com',
        ui_locales: 'en-GB de',
        scope: 'openid profile profile email',
      }),
    );
    expect(res.status).toBe(303);
    const location = res.headers.get('location')!;
    const prefix = `${ctx.config.server.identity_url}/authorize/`;
    expect(location.startsWith(prefix)).toBe(true);
    const id = location.slice(prefix.length);
    expect(id).toMatch(/^ar_[A-Za-z0-9_-]{43}$/);
    const row = ctx.db.sql.prepare<any>('SELECT * FROM authorization_requests WHERE id = ?').get(id)!;
    expect(row).toMatchObject({
      environment_id: confidential.environmentId,
      status: 'pending',
      redirect_uri: REDIRECT,
      state: 'st-123',
      nonce: 'n-456',
      code_challenge: challenge,
      purpose: 'Open an account',
      display: 'popup',
      prompt: 'login consent',
      max_age: 600,
      login_hint: 'ada@example.com',
      ui_locales: 'en-GB de',
    });
    expect(JSON.parse(row.scopes)).toEqual(['openid', 'profile', 'email']);
    expect(row.expires_at - row.created_at).toBe(15 * 60);
  });

  test('POST with a form body works like GET', async () => {
    const res = await request('/v1/oauth/authorize', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: params().toString(),
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toStartWith(`${ctx.config.server.identity_url}/authorize/ar_`);
    const bad = await request('/v1/oauth/authorize', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: params({ scope: 'openid nope' }).toString(),
    });
    await expectErrorRedirect(bad, 'invalid_scope');
  });

  test('a confidential application that opted out of PKCE for itself may omit it', async () => {
    const optOut = await createTestApp(ctx, {
      type: 'confidential',
      redirectUris: [REDIRECT],
      scopes: ['openid'],
      pkce: 'public-only',
    });
    const res = await authorize(
      params({ scope: 'openid', code_challenge: undefined, code_challenge_method: undefined }, optOut),
    );
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toContain('/authorize/ar_');
  });

  test('nonce is not required without openid', async () => {
    const res = await authorize(params({ scope: 'profile', nonce: undefined }));
    expect(res.headers.get('location')).toContain('/authorize/ar_');
  });
});

describe('client and redirect URI problems are shown as a page, never redirected', () => {
  test('unknown client', async () => {
    const html = await expectErrorPage(await authorize(params({ client_id: 'cid_test_nope' })));
    expect(html).toContain('invalid_client');
  });

  test('missing or repeated client_id', async () => {
    await expectErrorPage(await authorize(params({ client_id: undefined })));
    const p = params();
    p.append('client_id', publicApp.clientId);
    await expectErrorPage(await authorize(p));
  });

  test('missing or repeated redirect_uri', async () => {
    await expectErrorPage(await authorize(params({ redirect_uri: undefined })));
    const p = params();
    p.append('redirect_uri', REDIRECT);
    await expectErrorPage(await authorize(p));
  });

  const variants: [string, string][] = [
    ['trailing slash', 'https://app.example/callback/'],
    ['extra query', 'https://app.example/callback?next=/admin'],
    ['fragment', 'https://app.example/callback#x'],
    ['other port', 'https://app.example:8443/callback'],
    ['host case', 'https://APP.example/callback'],
    ['path case', 'https://app.example/Callback'],
    ['userinfo', 'https://evil.example@app.example/callback'],
    ['protocol-relative', '//evil.example/callback'],
    ['double slash path', 'https://app.example/callback//evil.example'],
    ['other scheme', 'http://app.example/callback'],
    ['other host', 'https://evil.example/callback'],
    ['prefix', 'https://app.example/call'],
  ];
  for (const [name, uri] of variants) {
    test(`redirect_uri variant: ${name}`, async () => {
      const html = await expectErrorPage(await authorize(params({ redirect_uri: uri })));
      expect(html).not.toContain('evil.example');
    });
  }

  test('a redirect URI of another application is not accepted', async () => {
    const other = await createTestApp(ctx, {
      type: 'confidential',
      redirectUris: ['https://other.example/cb'],
      scopes: ['openid'],
    });
    expect(other.clientId).not.toBe(confidential.clientId);
    await expectErrorPage(await authorize(params({ redirect_uri: 'https://other.example/cb' })));
  });

  test('a client id whose prefix does not match its environment is unknown', async () => {
    // Raw SQL: a tampered row, since no store ever writes a mislabelled client id.
    ctx.db.sql
      .prepare('UPDATE application_environments SET client_id = ? WHERE id = ?')
      .run('cid_live_mislabelled', confidential.environmentId);
    await expectErrorPage(await authorize(params({ client_id: 'cid_live_mislabelled' })));
  });

  test('the page escapes what the request sent', async () => {
    const html = await expectErrorPage(await authorize(params({ client_id: '<script>alert(1)</script>' })));
    expect(html).not.toContain('<script>');
  });
});

describe('every other problem is redirected with error, state and iss', () => {
  test('the registered query is kept and the original state returned', async () => {
    const res = await authorize(
      params({ redirect_uri: 'https://app.example/cb?tenant=1', scope: 'openid nope' }, publicApp),
    );
    const q = await expectErrorRedirect(res, 'invalid_scope', 'https://app.example/cb');
    expect(q.get('tenant')).toBe('1');
    expect(q.get('state')).toBe('st-123');
  });

  test('repeated parameters', async () => {
    for (const name of ['scope', 'state', 'nonce', 'code_challenge', 'response_type', 'prompt']) {
      const p = params({ prompt: 'login' });
      p.append(name, p.get(name)!);
      const q = await expectErrorRedirect(await authorize(p), 'invalid_request');
      expect(q.get('error_description')).toContain(name);
    }
  });

  test('request and request_uri are refused without fetching anything', async () => {
    let hits = 0;
    const server = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      fetch: () => {
        hits++;
        return new Response('eyJhbGciOiJub25lIn0.e30.');
      },
    });
    try {
      const q1 = await expectErrorRedirect(
        await authorize(params({ request_uri: `http://127.0.0.1:${server.port}/req` })),
        'request_uri_not_supported',
      );
      expect(q1.get('state')).toBe('st-123');
      await expectErrorRedirect(
        await authorize(params({ request: 'eyJhbGciOiJub25lIn0.e30.' })),
        'request_not_supported',
      );
      expect(hits).toBe(0);
    } finally {
      server.stop(true);
    }
  });

  test('response_type must be code', async () => {
    await expectErrorRedirect(
      await authorize(params({ response_type: 'token' })),
      'unsupported_response_type',
    );
    await expectErrorRedirect(
      await authorize(params({ response_type: 'code id_token' })),
      'unsupported_response_type',
    );
    await expectErrorRedirect(await authorize(params({ response_type: undefined })), 'invalid_request');
    await expectErrorRedirect(await authorize(params({ response_mode: 'fragment' })), 'invalid_request');
  });

  test('scope: required, known, and enabled for the application', async () => {
    await expectErrorRedirect(await authorize(params({ scope: undefined })), 'invalid_request');
    await expectErrorRedirect(await authorize(params({ scope: 'openid admin' })), 'invalid_scope');
    await expectErrorRedirect(await authorize(params({ scope: 'openid phone' })), 'invalid_scope');
  });

  test('sandbox never grants document_number_full, even when enabled', async () => {
    const q = await expectErrorRedirect(
      await authorize(params({ scope: 'openid document_number_full' })),
      'invalid_scope',
    );
    expect(q.get('error_description')).toContain('sandbox');
  });

  test('production grants document_number_full only with approval', async () => {
    const prod = await createTestApp(ctx, {
      type: 'confidential',
      redirectUris: [REDIRECT],
      scopes: SCOPES,
      environment: 'production',
      applicationId: confidential.applicationId,
    });
    expect(prod.clientId).toStartWith('cid_live_');
    await expectErrorRedirect(
      await authorize(params({ scope: 'openid document_number_full' }, prod)),
      'invalid_scope',
    );
    setApplicationFields(ctx.db, confidential.applicationId, { fullNumberApproved: true });
    const ok = await authorize(params({ scope: 'openid document_number_full' }, prod));
    expect(ok.headers.get('location')).toContain('/authorize/ar_');
  });

  test('state is required', async () => {
    const q = await expectErrorRedirect(await authorize(params({ state: undefined })), 'invalid_request');
    expect(q.has('state')).toBe(false);
    await expectErrorRedirect(await authorize(params({ state: '' })), 'invalid_request');
  });

  test('nonce is required with openid', async () => {
    const q = await expectErrorRedirect(await authorize(params({ nonce: undefined })), 'invalid_request');
    expect(q.get('error_description')).toContain('nonce');
  });

  test('public clients must use PKCE', async () => {
    await expectErrorRedirect(
      await authorize(params({ code_challenge: undefined, code_challenge_method: undefined }, publicApp)),
      'invalid_request',
    );
  });

  test('confidential clients must use PKCE unless the application opted out', async () => {
    await expectErrorRedirect(
      await authorize(params({ code_challenge: undefined, code_challenge_method: undefined })),
      'invalid_request',
    );
  });

  test('plain or a missing method is refused', async () => {
    await expectErrorRedirect(await authorize(params({ code_challenge_method: 'plain' })), 'invalid_request');
    await expectErrorRedirect(
      await authorize(params({ code_challenge_method: undefined })),
      'invalid_request',
    );
    await expectErrorRedirect(await authorize(params({ code_challenge: undefined })), 'invalid_request');
  });

  test('a challenge that is not 43 base64url characters is refused', async () => {
    for (const bad of [
      challenge.slice(1),
      `${challenge}A`,
      `${challenge.slice(1)}=`,
      `${challenge.slice(1)}+`,
    ]) {
      await expectErrorRedirect(await authorize(params({ code_challenge: bad })), 'invalid_request');
    }
  });

  test('purpose: plain text, length-limited', async () => {
    await expectErrorRedirect(await authorize(params({ purpose: 'x'.repeat(301) })), 'invalid_request');
    await expectErrorRedirect(await authorize(params({ purpose: 'two\nlines' })), 'invalid_request');
    const ok = await authorize(params({ purpose: 'x'.repeat(300) }));
    expect(ok.headers.get('location')).toContain('/authorize/ar_');
  });

  test('display is page or popup', async () => {
    await expectErrorRedirect(await authorize(params({ display: 'touch' })), 'invalid_request');
  });

  test('prompt, max_age, login_hint and ui_locales per OIDC Core', async () => {
    await expectErrorRedirect(await authorize(params({ prompt: 'select_account' })), 'invalid_request');
    await expectErrorRedirect(await authorize(params({ prompt: 'none login' })), 'invalid_request');
    await expectErrorRedirect(await authorize(params({ max_age: '-1' })), 'invalid_request');
    await expectErrorRedirect(await authorize(params({ max_age: '1.5' })), 'invalid_request');
    await expectErrorRedirect(await authorize(params({ login_hint: 'x'.repeat(257) })), 'invalid_request');
    await expectErrorRedirect(await authorize(params({ ui_locales: 'en;q=1' })), 'invalid_request');
    const ok = await authorize(params({ prompt: 'none', max_age: '0' }));
    expect(ok.headers.get('location')).toContain('/authorize/ar_');
  });

  test('state, nonce and login_hint are capped in bytes: 2,048, 512 and 256', async () => {
    // At the cap (in multi-byte characters too) the request goes through.
    const atCap = params({ state: 'é'.repeat(1024), nonce: 'n'.repeat(512), login_hint: 'ü'.repeat(128) });
    expect((await authorize(atCap)).headers.get('location')).toContain('/authorize/ar_');
    for (const over of [
      { nonce: 'n'.repeat(513) },
      { nonce: 'é'.repeat(257) },
      { login_hint: 'ü'.repeat(129) },
    ]) {
      const q = await expectErrorRedirect(await authorize(params(over)), 'invalid_request');
      expect(q.get('state')).toBe('st-123');
    }
    // An over-long state is refused and not reflected into the callback.
    for (const state of ['s'.repeat(2049), 'é'.repeat(1025)]) {
      const q = await expectErrorRedirect(await authorize(params({ state })), 'invalid_request');
      expect(q.get('error_description')).toContain('state');
      expect(q.has('state')).toBe(false);
    }
    // Nor when another check fails first.
    const q = await expectErrorRedirect(
      await authorize(params({ state: 's'.repeat(3000), response_type: 'token' })),
      'unsupported_response_type',
    );
    expect(q.has('state')).toBe(false);
    // Nor is a long unknown value (scope, prompt, a claims request's key): the description is cut short.
    for (const [over, error] of [
      [{ scope: `openid ${'x'.repeat(5000)}` }, 'invalid_scope'],
      [{ prompt: 'x'.repeat(5000) }, 'invalid_request'],
      [
        { claims: JSON.stringify({ userinfo: { ['%'.repeat(3900)]: { essential: 'yes' } } }) },
        'invalid_request',
      ],
    ] as const) {
      const refused = await authorize(params(over));
      expect(refused.headers.get('location')!.length).toBeLessThan(1000);
      const q = await expectErrorRedirect(refused, error);
      expect(q.get('error_description')).toEndWith('…');
      // The interface: a failed request's redirect carries the original state.
      expect(q.get('state')).toBe('st-123');
    }
  });

  test('nothing is stored for a refused request', async () => {
    await authorize(params({ scope: 'openid admin' }));
    await authorize(params({ client_id: 'cid_test_nope' }));
    const n = ctx.db.sql.prepare<{ n: number }>('SELECT count(*) AS n FROM authorization_requests').get()!;
    expect(n.n).toBe(0);
  });
});
