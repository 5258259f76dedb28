import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createTestApp, type TestApp } from '../helpers/apps.ts';
import { requestsCounted, startTestServer, type TestServer } from '../helpers/server.ts';
import { chunkedBody } from '../helpers/stream-body.ts';
import { basic, mintCode } from './fixtures.ts';

// The listener answers POST /v1/oauth/token itself, ahead of the app (a Bun.serve route; see
// src/app.ts createHandlers). Everything else the app's middleware gives a response must still be
// there when the request comes over a real socket, and other methods must still reach the app.

let server: TestServer;
let app: TestApp;

beforeAll(async () => {
  server = await startTestServer({ extra: '[rate_limits.oauth]\nrequests = 50' });
  app = await createTestApp(server.ctx, {
    type: 'confidential',
    redirectUris: ['https://app.example/callback'],
    scopes: ['openid', 'profile'],
  });
});
afterAll(() => server.stop());

const form = async () => {
  const m = await mintCode(server.ctx, app);
  return new URLSearchParams({
    grant_type: 'authorization_code',
    code: m.code,
    redirect_uri: m.redirectUri,
    code_verifier: m.verifier!,
  }).toString();
};

const post = (body: BodyInit, headers: Record<string, string> = {}) =>
  fetch(`${server.url}/v1/oauth/token`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      Authorization: basic(app.clientId, app.clientSecret!),
      ...headers,
    },
    body,
  });

test('an exchange over the socket carries the request id, rate-limit, cache and type headers', async () => {
  const res = await post(await form());
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/json');
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  expect(res.headers.get('x-ratelimit-limit')).toBe('50');
  expect(Number(res.headers.get('x-ratelimit-remaining'))).toBeLessThan(50);
  const body = (await res.json()) as { access_token: string; id_token: string };
  expect(body.access_token).toStartWith('at_');
  expect(body.id_token.split('.')).toHaveLength(3);
});

test('a chunked body is read whole, and a chunked body over 64 KiB is refused with 413', async () => {
  expect((await post(chunkedBody(await form(), 7))).status).toBe(200);
  const big = await post(chunkedBody(`grant_type=authorization_code&code=${'a'.repeat(70_000)}`, 7000));
  expect(big.status).toBe(413);
  expect(((await big.json()) as { error: string }).error).toBe('invalid_request');
});

test('an error keeps the token shape and the same headers', async () => {
  const res = await post(
    'grant_type=authorization_code&code=nope&redirect_uri=https%3A%2F%2Fapp.example%2Fcallback',
  );
  expect(res.status).toBe(400);
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  expect(res.headers.get('x-ratelimit-limit')).toBe('50');
  expect(await res.json()).toEqual({
    error: 'invalid_grant',
    error_description: 'The code is invalid, expired or already used.',
  });
});

test('other methods on the path still reach the app, and the route is counted in the metrics', async () => {
  const get = await fetch(`${server.url}/v1/oauth/token`);
  // The app's answer to another method (post-only.test.ts).
  expect(get.status).toBe(405);
  expect(await requestsCounted(server, 'POST', '/v1/oauth/token', 200)).toBeGreaterThan(0);
  expect(await requestsCounted(server, 'POST', '/v1/oauth/token', 413)).toBe(1);
});
