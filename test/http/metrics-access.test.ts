import { afterEach, expect, test } from 'bun:test';
import { createApp } from '../../src/app.ts';
import { type TestContext, testContext } from '../helpers/context.ts';

const TOKEN = 'metrics-token-0123456789abcdef-0123456789';

let ctx: TestContext | undefined;
afterEach(() => ctx?.cleanup());

async function appWith(extra = '') {
  ctx = await testContext({ extra });
  const app = createApp(ctx);
  return (path: string, ip: string, headers: Record<string, string> = {}) =>
    app.request(`http://localhost:8080${path}`, { headers }, { ip });
}

test('/metrics answers loopback clients and refuses every other address; /healthz and /readyz stay public', async () => {
  const get = await appWith();
  for (const ip of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1']) {
    const res = await get('/metrics', ip);
    expect({ ip, status: res.status }).toEqual({ ip, status: 200 });
    expect(await res.text()).toContain('verity_security_events_total{event="signin.failed"} 0');
  }
  for (const ip of ['203.0.113.9', '10.0.0.2', '192.168.1.1', '::ffff:203.0.113.9', '2001:db8::1']) {
    const res = await get('/metrics', ip);
    expect({ ip, status: res.status }).toEqual({ ip, status: 401 });
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="verity"');
    const body = await res.text();
    expect(body).toContain('"code":"UNAUTHORIZED"');
    expect(body).not.toContain('verity_');
    expect((await get('/healthz', ip)).status).toBe(200);
    expect((await get('/readyz', ip)).status).toBe(200);
  }
});

test('without a configured token no bearer opens /metrics to another host', async () => {
  const get = await appWith();
  expect((await get('/metrics', '203.0.113.9', { authorization: 'Bearer ' })).status).toBe(401);
  expect((await get('/metrics', '203.0.113.9', { authorization: `Bearer ${TOKEN}` })).status).toBe(401);
});

test('another host reads /metrics with `[server] metrics_token` as a bearer, and only with it', async () => {
  const get = await appWith(`[server]\nmetrics_token = "${TOKEN}"`);
  const from = '203.0.113.9';
  expect((await get('/metrics', from, { authorization: `Bearer ${TOKEN}` })).status).toBe(200);
  expect((await get('/metrics', from, { authorization: `bearer ${TOKEN}` })).status).toBe(200);
  for (const authorization of [
    `Bearer ${TOKEN}x`,
    `Bearer ${TOKEN.slice(0, -1)}`,
    `Basic ${btoa(`metrics:${TOKEN}`)}`,
    TOKEN,
    '',
  ])
    expect({ authorization, status: (await get('/metrics', from, { authorization })).status }).toEqual({
      authorization,
      status: 401,
    });
  expect((await get('/metrics', from)).status).toBe(401);
});

test('behind a trusted proxy the forwarded address decides, not the proxy on loopback', async () => {
  const get = await appWith('[server]\ntrust_proxy = "x-forwarded-for"');
  expect((await get('/metrics', '127.0.0.1', { 'x-forwarded-for': '203.0.113.9' })).status).toBe(401);
  expect((await get('/metrics', '127.0.0.1', { 'x-forwarded-for': '127.0.0.1' })).status).toBe(200);
});

// The multi-instance set-up listens on a private address behind a load balancer: a machine reaching the
// listener past it must not pass for loopback by saying so in the header.
test('a peer that is not a trusted proxy cannot claim loopback in the header', async () => {
  const get = await appWith('[server]\ntrust_proxy = "x-forwarded-for"\ntrusted_proxies = ["10.0.0.2"]');
  expect((await get('/metrics', '10.0.0.99', { 'x-forwarded-for': '127.0.0.1' })).status).toBe(401);
  expect((await get('/metrics', '10.0.0.2', { 'x-forwarded-for': '127.0.0.1' })).status).toBe(200);
});
