import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createTestApp, type TestApp } from '../helpers/apps.ts';
import { requestsCounted, startTestServer, type TestServer } from '../helpers/server.ts';
import { chunkedBody, streamBody } from '../helpers/stream-body.ts';
import { REDIRECT } from '../oauth/fixtures.ts';
import { issueToken } from './fixtures.ts';

// The listener answers GET and POST /v1/userinfo itself, ahead of the app (a Bun.serve route; see
// src/oidc/userinfo.router.ts). What the app's middleware gave every response must still be there
// over a real socket, and preflights and other methods must still reach the app.

const ORIGIN = 'https://spa.example';
let server: TestServer;
let app: TestApp;
let token: string;

beforeAll(async () => {
  server = await startTestServer({ extra: '[rate_limits.userinfo]\nrequests = 40' });
  app = await createTestApp(server.ctx, {
    type: 'confidential',
    redirectUris: [REDIRECT],
    scopes: 'openid email',
    webOrigins: [ORIGIN],
  });
  token = (await issueToken(server.ctx, app, { scopes: ['openid', 'email'], personId: 'psn_sandbox_ada' }))
    .accessToken;
});
afterAll(() => server.stop());

const userinfo = (init: RequestInit = {}) => fetch(`${server.url}/v1/userinfo`, init);

const form = { 'Content-Type': 'application/x-www-form-urlencoded' };

test('GET over the socket carries the claims, request id, rate-limit, CORS and no-store headers', async () => {
  const res = await userinfo({ headers: { Authorization: `Bearer ${token}`, Origin: ORIGIN } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toStartWith('application/json');
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect(res.headers.get('pragma')).toBe('no-cache');
  expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  expect(res.headers.get('x-ratelimit-limit')).toBe('40');
  expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
  expect(res.headers.get('vary')).toBe('Origin');
  const body = (await res.json()) as { sub: string; email: string };
  expect(body.sub.length).toBeGreaterThan(0);
  expect(body.email).toContain('@');
});

test('POST with the token in a chunked form body works; a body over 1 MiB is refused with 413', async () => {
  const ok = await userinfo({ method: 'POST', headers: form, body: chunkedBody(`access_token=${token}`, 5) });
  expect(ok.status).toBe(200);
  const big = await streamBody(`${server.url}/v1/userinfo`, {
    bytes: 2 * 1024 * 1024,
    contentType: 'application/x-www-form-urlencoded',
  });
  expect(big.status).toBe(413);
  const body = JSON.parse(big.body) as { error: { code: string; requestId: string } };
  expect(body.error.code).toBe('PAYLOAD_TOO_LARGE');
  expect(body.error.requestId).toBe(big.headers['x-request-id']!);
});

test('a refusal keeps the API shape, the challenge and the same headers', async () => {
  const res = await userinfo({ headers: { Authorization: 'Bearer at_not-a-real-token' } });
  expect(res.status).toBe(401);
  expect(res.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect(res.headers.get('x-ratelimit-limit')).toBe('40');
  const body = (await res.json()) as { error: { code: string; requestId: string } };
  expect(body.error.code).toBe('invalid_token');
  expect(body.error.requestId).toBe(res.headers.get('x-request-id')!);
  const elsewhere = await userinfo({
    headers: { Authorization: `Bearer ${token}`, Origin: 'https://evil.example' },
  });
  expect(elsewhere.status).toBe(403);
  expect(((await elsewhere.json()) as { error: { code: string } }).error.code).toBe('ORIGIN_NOT_ALLOWED');
});

test('preflights and other methods still reach the app, and the route is counted in the metrics', async () => {
  const preflight = await userinfo({
    method: 'OPTIONS',
    headers: { Origin: ORIGIN, 'Access-Control-Request-Method': 'GET' },
  });
  expect(preflight.status).toBe(204);
  expect(preflight.headers.get('access-control-allow-origin')).toBe(ORIGIN);
  const put = await userinfo({ method: 'PUT', headers: { Authorization: `Bearer ${token}` } });
  expect(put.status).toBe(404);
  expect(((await put.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
  expect(await requestsCounted(server, 'GET', '/v1/userinfo', 200)).toBeGreaterThan(0);
  expect(await requestsCounted(server, 'POST', '/v1/userinfo', 413)).toBe(1);
});
