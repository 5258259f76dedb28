import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { updateApplication } from '../../src/apps/registration.ts';
import { CORS_MAX_AGE_SECONDS, corsForClient } from '../../src/http/cors.ts';
import { createTestApp, type TestApp } from '../helpers/apps.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { basic, type Minted, mintCode, REDIRECT, tokenRequest } from '../oauth/fixtures.ts';

// A real server on a real port: what a browser's fetch meets, header by header.
const SPA = 'https://spa.example';
const OTHER = 'https://evil.example';

let server: TestServer;
let spa: TestApp;
let backend: TestApp;

beforeAll(async () => {
  server = await startTestServer({ extra: '[rate_limits.oauth]\nrequests = 10000' });
  spa = await createTestApp(server.ctx, {
    type: 'public',
    redirectUris: [REDIRECT],
    webOrigins: [SPA],
    scopes: ['openid', 'profile', 'identity_documents'],
  });
  backend = await createTestApp(server.ctx, {
    type: 'confidential',
    redirectUris: [REDIRECT],
    webOrigins: ['https://backend-console.example'],
    scopes: ['openid', 'profile'],
  });
});
afterAll(() => server.stop());

const call = (path: string, init: RequestInit = {}, origin?: string) =>
  fetch(`${server.url}${path}`, {
    ...init,
    headers: { ...(init.headers as Record<string, string>), ...(origin ? { Origin: origin } : {}) },
  });

const exchangeInit = (m: Minted, app: TestApp = spa) =>
  tokenRequest(
    {
      grant_type: 'authorization_code',
      code: m.code,
      redirect_uri: m.redirectUri,
      client_id: app.clientId,
      ...(m.verifier ? { code_verifier: m.verifier } : {}),
    },
    { auth: app.clientSecret ? basic(app.clientId, app.clientSecret) : undefined },
  );

async function accessToken(): Promise<string> {
  const m = await mintCode(server.ctx, spa, { scopes: ['openid', 'profile', 'identity_documents'] });
  const res = await call('/v1/oauth/token', exchangeInit(m), SPA);
  expect(res.status).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

describe('corsForClient', () => {
  const never = () => {
    throw new Error('looked up');
  };
  const req = (origin?: string) => new Request(server.url, { headers: origin ? { Origin: origin } : {} });

  test('no lookup without Origin or from our own origin: the hot paths cost nothing more', () => {
    expect(corsForClient(req(), server.url, never)).toEqual({ allowed: true, headers: { Vary: 'Origin' } });
    expect(corsForClient(req(server.url), server.url, never).allowed).toBe(true);
  });

  test('an origin is allowed only by exact match with a registered one', () => {
    const registered = () => [SPA];
    expect(corsForClient(req(SPA), server.url, registered).headers['Access-Control-Allow-Origin']).toBe(SPA);
    for (const origin of [
      'https://spa.example:443',
      'https://SPA.example',
      'null',
      'https://spa.example.evil',
    ])
      expect(corsForClient(req(origin), server.url, registered)).toEqual({
        allowed: false,
        headers: { Vary: 'Origin' },
      });
  });
});

describe('discovery and JWKS', () => {
  test.each(['/.well-known/openid-configuration', '/.well-known/jwks.json'])(
    '%s is readable by any page',
    async (path) => {
      const res = await call(path, {}, OTHER);
      expect(res.status).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    },
  );
});

describe('preflight', () => {
  test.each([
    ['/v1/oauth/token', 'POST'],
    ['/v1/oauth/revoke', 'POST'],
    ['/v1/userinfo', 'GET'],
    ['/v1/userinfo/identity-documents', 'GET'],
    ['/v1/userinfo/identity-documents/abc', 'GET'],
  ])('%s: 204 with methods, headers and Max-Age; the origin echoed when registered', async (path, method) => {
    const res = await call(
      path,
      {
        method: 'OPTIONS',
        headers: {
          'Access-Control-Request-Method': method,
          'Access-Control-Request-Headers': 'authorization, content-type',
        },
      },
      SPA,
    );
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(SPA);
    expect(res.headers.get('access-control-allow-methods')).toContain(method);
    expect(res.headers.get('access-control-allow-headers')).toBe('Authorization, Content-Type, Accept');
    expect(res.headers.get('access-control-max-age')).toBe(String(CORS_MAX_AGE_SECONDS));
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    expect(res.headers.get('vary')).toContain('Origin');
  });

  test('an origin no application registered gets no Access-Control-Allow-Origin', async () => {
    for (const origin of [OTHER, 'null', 'https://spa.example.evil.example', 'http://spa.example']) {
      const res = await call('/v1/oauth/token', { method: 'OPTIONS' }, origin);
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    }
  });

  test('preflights do not count against the OAuth rate limit', async () => {
    const before = await call('/v1/oauth/token', exchangeInit(await mintCode(server.ctx, spa)), SPA);
    const remaining = Number(before.headers.get('x-ratelimit-remaining'));
    for (let i = 0; i < 3; i++) await call('/v1/oauth/token', { method: 'OPTIONS' }, SPA);
    const after = await call('/v1/oauth/token', exchangeInit(await mintCode(server.ctx, spa)), SPA);
    expect(Number(after.headers.get('x-ratelimit-remaining'))).toBe(remaining - 1);
  });
});

describe('revocation endpoint', () => {
  const revokeInit = (token: string) => tokenRequest({ token, client_id: spa.clientId });
  const userinfo = (token: string) => call('/v1/userinfo', { headers: { Authorization: `Bearer ${token}` } });

  test("the client's own page revokes its token and reads the answer", async () => {
    const token = await accessToken();
    const res = await call('/v1/oauth/revoke', revokeInit(token), SPA);
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(SPA);
    expect(res.headers.get('vary')).toBe('Origin');
    expect((await userinfo(token)).status).toBe(401);
  });

  test('a page of another origin gets no CORS headers and the token stays valid', async () => {
    const token = await accessToken();
    const res = await call('/v1/oauth/revoke', revokeInit(token), OTHER);
    expect(res.status).toBe(400);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect((await userinfo(token)).status).toBe(200);
  });
});

describe('token endpoint', () => {
  test("the client's own origin gets Access-Control-Allow-Origin, on success and on error", async () => {
    const m = await mintCode(server.ctx, spa);
    const ok = await call('/v1/oauth/token', exchangeInit(m), SPA);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe(SPA);
    expect(ok.headers.get('access-control-expose-headers')).toContain('X-RateLimit-Remaining');
    expect(ok.headers.get('vary')).toBe('Origin');
    expect(ok.headers.get('access-control-allow-credentials')).toBeNull();
    // Reuse: the page can read why it failed.
    const again = await call('/v1/oauth/token', exchangeInit(m), SPA);
    expect(again.status).toBe(400);
    expect(again.headers.get('access-control-allow-origin')).toBe(SPA);
  });

  test('another origin gets no CORS headers and the code is not redeemed', async () => {
    for (const origin of [OTHER, 'null', 'https://backend-console.example']) {
      const m = await mintCode(server.ctx, spa);
      const res = await call('/v1/oauth/token', exchangeInit(m), origin);
      expect(res.status).toBe(400);
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
      expect(res.headers.get('vary')).toBe('Origin');
      expect(((await res.json()) as { error: string }).error).toBe('invalid_request');
      // Not redeemed: the same code still works from the registered page.
      expect((await call('/v1/oauth/token', exchangeInit(m), SPA)).status).toBe(200);
    }
  });

  test('a confidential client is refused from an unregistered origin before its secret is checked', async () => {
    const m = await mintCode(server.ctx, backend);
    const wrongSecret = { ...backend, clientSecret: 'cs_test_wrong' };
    const res = await call('/v1/oauth/token', exchangeInit(m, wrongSecret), SPA);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe('invalid_request');
  });

  test('a server-side request without Origin is unaffected; an unknown client gets no CORS headers', async () => {
    const m = await mintCode(server.ctx, backend);
    const res = await call('/v1/oauth/token', exchangeInit(m, backend));
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    const unknown = await call(
      '/v1/oauth/token',
      tokenRequest({ grant_type: 'authorization_code', code: 'x', client_id: 'cid_test_nobody' }),
      SPA,
    );
    expect(unknown.status).toBe(401);
    expect(unknown.headers.get('access-control-allow-origin')).toBeNull();
  });

  test('an origin added later is allowed at once (the client cache follows web_origins)', async () => {
    const extra = await createTestApp(server.ctx, {
      type: 'public',
      redirectUris: [REDIRECT],
      scopes: ['openid'],
    });
    const first = await call(
      '/v1/oauth/token',
      exchangeInit(await mintCode(server.ctx, extra, { scopes: ['openid'] }), extra),
      SPA,
    );
    expect(first.headers.get('access-control-allow-origin')).toBeNull();
    updateApplication(server.ctx.db, server.ctx.clock, extra.applicationId, {
      webOrigins: [SPA],
      actor: 'cli',
    });
    const m = await mintCode(server.ctx, extra, { scopes: ['openid'] });
    const second = await call('/v1/oauth/token', exchangeInit(m, extra), SPA);
    expect(second.status).toBe(200);
    expect(second.headers.get('access-control-allow-origin')).toBe(SPA);
  });
});

describe('UserInfo and documents', () => {
  test.each(['/v1/userinfo', '/v1/userinfo/identity-documents'])(
    '%s: the client of the token gets its origin back; another origin gets nothing',
    async (path) => {
      const token = await accessToken();
      const auth = { headers: { Authorization: `Bearer ${token}` } };
      const ok = await call(path, auth, SPA);
      expect(ok.status).toBe(200);
      expect(ok.headers.get('access-control-allow-origin')).toBe(SPA);
      expect(ok.headers.get('vary')).toContain('Origin');
      const other = await call(path, auth, OTHER);
      expect(other.status).toBe(403);
      expect(other.headers.get('access-control-allow-origin')).toBeNull();
      expect(((await other.json()) as { error: { code: string } }).error.code).toBe('ORIGIN_NOT_ALLOWED');
      const server2server = await call(path, auth);
      expect(server2server.status).toBe(200);
      expect(server2server.headers.get('access-control-allow-origin')).toBeNull();
    },
  );

  test('an expired token still names its client: the page can read the 401', async () => {
    const token = await accessToken();
    server.clock.advance(16 * 60 * 1000);
    const res = await call('/v1/userinfo', { headers: { Authorization: `Bearer ${token}` } }, SPA);
    expect(res.status).toBe(401);
    expect(res.headers.get('access-control-allow-origin')).toBe(SPA);
    expect(res.headers.get('access-control-expose-headers')).toContain('WWW-Authenticate');
    const unknown = await call('/v1/userinfo', { headers: { Authorization: 'Bearer at_nothing' } }, SPA);
    expect(unknown.status).toBe(401);
    expect(unknown.headers.get('access-control-allow-origin')).toBeNull();
  });
});
