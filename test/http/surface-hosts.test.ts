import { afterEach, expect, test } from 'bun:test';
import { createApp, createHandlers } from '../../src/app.ts';
import { parseConfig } from '../../src/config/load.ts';
import { submitSignUp } from '../developer/portal-helpers.ts';
import { type TestContext, testContext } from '../helpers/context.ts';
import { Browser } from '../identity/flow-helpers.ts';

const BASE = 'http://localhost:8080';
const ID = 'http://id.localhost:8080';
const DEV = 'http://dev.localhost:8080';

let ctx: TestContext | undefined;
afterEach(() => ctx?.cleanup());

async function app(server: string) {
  ctx = await testContext({ extra: `[server]\n${server}\n[developer]\nsignup = "open"` });
  return createApp(ctx);
}

const status = async (a: Awaited<ReturnType<typeof app>>, url: string) => ({
  url,
  status: (await a.request(url, { redirect: 'manual' })).status,
});

test('with hosts of their own, the identity experience and the portal are each served on their host only', async () => {
  const a = await app(`identity_url = "${ID}"\ndeveloper_url = "${DEV}"`);
  const cases: [string, number][] = [
    [`${ID}/account`, 200],
    [`${DEV}/signin`, 200],
    [`${BASE}/v1/capabilities/scopes`, 200],
    // Each surface on no other host, and no API on a surface's host.
    [`${BASE}/account`, 404],
    [`${BASE}/signin`, 404],
    [`${DEV}/authorize/req_x`, 404],
    [`${ID}/signin`, 404],
    [`${ID}/v1/capabilities/scopes`, 404],
    [`${DEV}/.well-known/openid-configuration`, 404],
    // Probes reach every host.
    [`${ID}/healthz`, 200],
    [`${DEV}/readyz`, 200],
    [`${BASE}/healthz`, 200],
  ];
  for (const [url, expected] of cases) expect(await status(a, url)).toEqual({ url, status: expected });
});

test('the routes the listener serves ahead of the app answer the API on the API host only', async () => {
  await app(`identity_url = "${ID}"\ndeveloper_url = "${DEV}"`);
  const { routes } = createHandlers(ctx!);
  const conn = { ip: '198.51.100.7' };
  for (const path of ['/.well-known/openid-configuration', '/.well-known/jwks.json']) {
    const get = routes[path]!.GET!;
    expect((await get(new Request(`${BASE}${path}`), conn)).status).toBe(200);
    expect((await get(new Request(`${DEV}${path}`), conn)).status).toBe(404);
    expect((await get(new Request(`${ID}${path}`), conn)).status).toBe(404);
  }
  const token = routes['/v1/oauth/token']!.POST!;
  expect((await token(new Request(`${ID}/v1/oauth/token`, { method: 'POST' }), conn)).status).toBe(404);
});

test("the portal's account page on its own host is the portal's, not the identity experience's", async () => {
  const a = await app(`identity_url = "${ID}"\ndeveloper_url = "${DEV}"`);
  const dev = new Browser(a, '198.51.100.7', DEV);
  const signup = await submitSignUp(dev, 'alice@example.com', { portal: DEV, name: 'Alice' });
  expect(signup.status).toBe(303);
  const account = await dev.get(`${DEV}/account`);
  expect(account.status).toBe(200);
  expect(await account.text()).toContain('alice@example.com');
  // Signed out of the portal, its account page sends to the portal's sign-in.
  const stranger = await a.request(`${DEV}/account`, { redirect: 'manual' });
  expect(stranger.status).toBe(303);
  expect(stranger.headers.get('location')).toBe('/signin');
});

test('surfaces on the base host keep their paths and answer on any host', async () => {
  const a = await app('');
  for (const url of [
    `${BASE}/identity/account`,
    `${BASE}/developer/signin`,
    'http://10.0.0.9:8080/developer/signin',
  ])
    expect(await status(a, url)).toEqual({ url, status: 200 });
});

test('identity_url and developer_url at one address is refused at config load', () => {
  for (const server of [
    `identity_url = "${ID}"\ndeveloper_url = "${ID}/"`,
    `identity_url = "${BASE}/developer"`,
    // One address spelt two ways.
    `identity_url = "${ID}"\ndeveloper_url = "HTTP://ID.localhost:8080/"`,
  ])
    expect(() => parseConfig(`[server]\n${server}`)).toThrow(/developer_url.*must differ from identity_url/s);
});

// The pages are loaded with the first request for one (docs/architecture.md#memory).
test('a fresh app answers its first page requests, made together, each once with one request id', async () => {
  const a = await app('');
  const urls = [`${BASE}/identity/account`, `${BASE}/developer/signin`, `${BASE}/developer/signup`];
  const responses = await Promise.all([...urls, ...urls].map((url) => a.request(url)));
  for (const res of responses) {
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toStartWith('text/html');
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  }
  expect(new Set(responses.map((r) => r.headers.get('x-request-id'))).size).toBe(responses.length);
  // The API beside them is unchanged: its own errors, its own shape.
  const missing = await a.request(`${BASE}/v1/nothing-here`);
  expect(missing.status).toBe(404);
  expect((await missing.json()).error.code).toBe('NOT_FOUND');
  // An unknown page of a surface is that surface's, and also counted once.
  const page = await a.request(`${BASE}/identity/nothing-here`);
  expect([page.status, page.headers.get('content-type')]).toEqual([404, 'text/html; charset=UTF-8']);
  // Each request went through the middleware once: counted once, under its route.
  const counted = ctx!.metrics
    .render()
    .split('\n')
    .filter((line) => line.startsWith('verity_http_requests_total{'));
  expect(counted.reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0)).toBe(responses.length + 2);
  expect(ctx!.metrics.requests.get({ route: '/identity/account', method: 'GET', status: '200' })).toBe(2);
});

test("a surface's paths on a host that does not serve it get the API's body limit and shape", async () => {
  const a = await app(`identity_url = "${ID}"\ndeveloper_url = "${DEV}"`);
  const post = (url: string, bytes: number) =>
    a.request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'x'.repeat(bytes),
    });
  // Over the API's 1 MiB: refused in the API's shape, where the portal is not served.
  const elsewhere = await post(`${BASE}/signup`, 2 * 1024 * 1024);
  expect(elsewhere.status).toBe(413);
  expect((await elsewhere.json()).error.code).toBe('PAYLOAD_TOO_LARGE');
  // Over the pages' 64 KiB on the portal's host: the portal's own page.
  const own = await post(`${DEV}/signup`, 65 * 1024);
  expect(own.status).toBe(413);
  expect(own.headers.get('content-type')).toStartWith('text/html');
});
