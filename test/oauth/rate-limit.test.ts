import { Database } from 'bun:sqlite';
import { afterEach, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { Hono } from 'hono';
import type { AppEnv } from '../../src/http/env.ts';
import { countRequest, rateLimit } from '../../src/http/rate-limit.ts';
import { requestContext } from '../../src/http/request-context.ts';
import { deleteExpiredOAuthState } from '../../src/oauth/jobs.ts';
import { countSignupAttempt } from '../../src/portal/account.ts';
import { createTestApp, type TestApp, type TestAppOptions } from '../helpers/apps.ts';
import { type TestContext, testContext } from '../helpers/context.ts';
import { inProcess, REDIRECT, tokenRequest } from './fixtures.ts';

let ctx: TestContext | undefined;
afterEach(() => ctx?.cleanup());

async function setup(extra: string) {
  ctx = await testContext({ extra });
  const app = await createTestApp(ctx, publicApp);
  return { ctx, app, request: inProcess(ctx) };
}

const authorizePath = (app: TestApp) =>
  `/v1/oauth/authorize?${new URLSearchParams({ client_id: app.clientId, redirect_uri: REDIRECT, response_type: 'code', scope: 'profile', state: 's', code_challenge: 'A'.repeat(43), code_challenge_method: 'S256' })}`;

const publicApp: TestAppOptions = { type: 'public', redirectUris: [REDIRECT], scopes: ['profile'] };
const confidential: TestAppOptions = { ...publicApp, type: 'confidential' };

/** A code exchange as `client` (HTTP Basic with a secret, else client_id alone); the code is made up. */
function exchangeAs(client: { clientId: string; clientSecret?: string }, opts: { as?: 'json' } = {}) {
  const body = {
    grant_type: 'authorization_code',
    code: 'x',
    redirect_uri: REDIRECT,
    code_verifier: 'v'.repeat(43),
  };
  const auth = client.clientSecret && `Basic ${btoa(`${client.clientId}:${client.clientSecret}`)}`;
  return tokenRequest(auth ? body : { ...body, client_id: client.clientId }, { auth, as: opts.as ?? 'form' });
}

const limits = (res: Response) => ({
  limit: res.headers.get('x-ratelimit-limit'),
  remaining: res.headers.get('x-ratelimit-remaining'),
  reset: res.headers.get('x-ratelimit-reset'),
});

/** A proxy at 10.0.0.1 names the client in X-Forwarded-For. */
const PROXIED =
  '[rate_limits.oauth]\nrequests = 1\n[server]\ntrust_proxy = "X-Forwarded-For"\ntrusted_proxies = ["10.0.0.0/24"]';

describe('OAuth endpoints', () => {
  test('30 requests per IP per 10 minutes by default, with headers on every response', async () => {
    const { ctx, app, request } = await setup('');
    for (let i = 1; i <= 30; i++) {
      const res = await request(authorizePath(app));
      expect(res.status).toBe(303);
      expect(limits(res)).toEqual({ limit: '30', remaining: String(30 - i), reset: '600' });
    }
    const over = await request(authorizePath(app));
    expect(over.status).toBe(429);
    expect(over.headers.get('retry-after')).toBe('600');
    expect(limits(over)).toEqual({ limit: '30', remaining: '0', reset: '600' });
    const body = (await over.json()) as { error: { code: string; message: string; requestId: string } };
    expect(body.error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(body.error.requestId).toBe(over.headers.get('x-request-id')!);
    expect(
      ctx.db.sql.prepare<{ n: number }>('SELECT count(*) AS n FROM authorization_requests').get()!.n,
    ).toBe(30);
  });

  test('authorize and token share one bucket; the token endpoint answers 429 too', async () => {
    const { app, request } = await setup('[rate_limits.oauth]\nrequests = 2\nwindow = "1m"');
    expect((await request(authorizePath(app))).headers.get('x-ratelimit-remaining')).toBe('1');
    const token = await request('/v1/oauth/token', {
      method: 'POST',
      body: 'x',
      headers: { 'Content-Type': 'text/plain' },
    });
    expect(token.status).toBe(400);
    expect(token.headers.get('x-ratelimit-remaining')).toBe('0');
    const over = await request('/v1/oauth/token', {
      method: 'POST',
      body: 'x',
      headers: { 'Content-Type': 'text/plain' },
    });
    expect(over.status).toBe(429);
    expect(over.headers.get('retry-after')).toBe('60');
    // The token endpoint keeps its own error shape, so OAuth client libraries can read the 429.
    const body = (await over.json()) as any;
    expect(body.error).toBe('RATE_LIMIT_EXCEEDED');
    expect(typeof body.error_description).toBe('string');
    const authorizeOver = await request(authorizePath(app));
    expect(authorizeOver.status).toBe(429);
    expect(((await authorizeOver.json()) as any).error.code).toBe('RATE_LIMIT_EXCEEDED');
    // Other paths are not in the OAuth bucket.
    expect((await request('/.well-known/openid-configuration')).headers.get('x-ratelimit-limit')).toBeNull();
  });

  test('concurrent requests are each counted once, in order: exactly the limit get through', async () => {
    const { ctx, app, request } = await setup('[rate_limits.oauth]\nrequests = 25\nwindow = "1m"');
    // 40 at once from one address (counted together in one turn), 5 from another.
    const results = await Promise.all([
      ...Array.from({ length: 40 }, () => request(authorizePath(app))),
      ...Array.from({ length: 5 }, () => request(authorizePath(app), undefined, '203.0.113.9')),
    ]);
    const first = results.slice(0, 40);
    expect(first.filter((r) => r.status === 303)).toHaveLength(25);
    expect(first.filter((r) => r.status === 429)).toHaveLength(15);
    const remaining = first
      .filter((r) => r.status === 303)
      .map((r) => Number(r.headers.get('x-ratelimit-remaining')))
      .sort((a, b) => b - a);
    expect(remaining).toEqual(Array.from({ length: 25 }, (_, i) => 24 - i));
    expect(results.slice(40).map((r) => r.headers.get('x-ratelimit-remaining'))).toEqual([
      '24',
      '23',
      '22',
      '21',
      '20',
    ]);
    const count = (key: string) =>
      ctx.db.sql.prepare<{ count: number }>('SELECT count FROM rate_limit_buckets WHERE key = ?').get(key)
        ?.count;
    expect(count('oauth:ip:198.51.100.7')).toBe(40);
    expect(count('oauth:ip:203.0.113.9')).toBe(5);
    // The next one, alone, continues the count.
    const next = await request(authorizePath(app), undefined, '203.0.113.9');
    expect(next.headers.get('x-ratelimit-remaining')).toBe('19');
  });

  test('the window resets after it ends (fixed clock)', async () => {
    const { ctx, app, request } = await setup('[rate_limits.oauth]\nrequests = 2\nwindow = "10m"');
    await request(authorizePath(app));
    ctx.clock.advance(240_000);
    const second = await request(authorizePath(app));
    expect(limits(second)).toEqual({ limit: '2', remaining: '0', reset: '360' });
    const over = await request(authorizePath(app));
    expect(over.status).toBe(429);
    expect(over.headers.get('retry-after')).toBe('360');
    ctx.clock.advance(359_000);
    expect((await request(authorizePath(app))).status).toBe(429);
    ctx.clock.advance(1_000);
    const fresh = await request(authorizePath(app));
    expect(fresh.status).toBe(303);
    expect(limits(fresh)).toEqual({ limit: '2', remaining: '1', reset: '600' });
  });

  test('each client address has its own bucket; proxy headers are ignored without trust_proxy', async () => {
    const { app, request } = await setup('[rate_limits.oauth]\nrequests = 1');
    expect((await request(authorizePath(app), undefined, '203.0.113.1')).status).toBe(303);
    expect((await request(authorizePath(app), undefined, '203.0.113.2')).status).toBe(303);
    const spoofed = await request(
      authorizePath(app),
      { headers: { 'X-Forwarded-For': '192.0.2.99' } },
      '203.0.113.1',
    );
    expect(spoofed.status).toBe(429);
  });

  test('with trust_proxy the address comes from the named header (its last hop)', async () => {
    const { app, request } = await setup(PROXIED);
    const via = (xff: string) =>
      request(authorizePath(app), { headers: { 'X-Forwarded-For': xff } }, '10.0.0.1');
    expect((await via('192.0.2.1')).status).toBe(303);
    expect((await via('192.0.2.2')).status).toBe(303);
    expect((await via('192.0.2.1')).status).toBe(429);
    // A client cannot escape its bucket by prepending addresses: the proxy's own hop is last.
    expect((await via('198.51.100.1, 192.0.2.1')).status).toBe(429);
  });

  test('the header is believed only from a trusted proxy, and only when its hop is an address', async () => {
    const { app, request } = await setup(PROXIED);
    // A machine reaching the listener past the proxy claims a fresh address per request: ignored.
    const direct = (xff: string) =>
      request(authorizePath(app), { headers: { 'X-Forwarded-For': xff } }, '203.0.113.50');
    expect((await direct('192.0.2.1')).status).toBe(303);
    expect((await direct('192.0.2.2')).status).toBe(429);
    // A proxy that writes the port, or brackets: the address is the bucket, not address and port.
    const via = (xff: string) =>
      request(authorizePath(app), { headers: { 'X-Forwarded-For': xff } }, '10.0.0.1');
    expect((await via('198.51.100.7:40000')).status).toBe(303);
    expect((await via('198.51.100.7:40001')).status).toBe(429);
    expect((await via('[2001:db8::1]:443')).status).toBe(303);
    expect((await via('2001:db8::2')).status).toBe(429);
    // A hop that is no address at all counts as the proxy's own.
    expect((await via('unknown')).status).toBe(303);
    expect((await via('obfuscated-x')).status).toBe(429);
  });

  test('the token endpoint reads the client address the same way, spoofed or proxied', async () => {
    const token = (request: ReturnType<typeof inProcess>, xff: string, from: string) =>
      request(
        '/v1/oauth/token',
        { method: 'POST', body: 'x', headers: { 'Content-Type': 'text/plain', 'X-Forwarded-For': xff } },
        from,
      );
    const direct = await setup('[rate_limits.oauth]\nrequests = 1');
    expect((await token(direct.request, '192.0.2.1', '203.0.113.1')).status).toBe(400);
    expect((await token(direct.request, '192.0.2.2', '203.0.113.1')).status).toBe(429);
    direct.ctx.cleanup();
    const proxied = await setup(PROXIED);
    expect((await token(proxied.request, '192.0.2.1', '10.0.0.1')).status).toBe(400);
    expect((await token(proxied.request, '192.0.2.2', '10.0.0.1')).status).toBe(400);
    expect((await token(proxied.request, '198.51.100.1, 192.0.2.1', '10.0.0.1')).status).toBe(429);
  });

  test('an authenticated client counts at its environment and plan limit, from the config', async () => {
    const { ctx, request } = await setup(`
[rate_limits.oauth]
requests = 1
[rate_limits.oauth.environments.production]
requests = 3
[rate_limits.oauth.plans.enterprise]
requests = 5
window = "1h"
`);
    const prod = await createTestApp(ctx, { ...confidential, environment: 'production' });
    const p = await request('/v1/oauth/token', exchangeAs(prod), '192.0.2.11');
    expect(limits(p)).toMatchObject({ limit: '3', remaining: '2', reset: '600' });
    // Authenticated, the request reached the exchange: the code itself was judged.
    expect(((await p.json()) as any).error).toBe('invalid_grant');
    const ent = await createTestApp(ctx, { ...confidential, environment: 'production', plan: 'enterprise' });
    const e = await request('/v1/oauth/token', exchangeAs(ent, { as: 'json' }), '192.0.2.12');
    expect(limits(e)).toEqual({ limit: '5', remaining: '4', reset: '3600' });
  });

  test('naming a client is not authenticating: the default limit until the secret is right', async () => {
    const { ctx, request } = await setup(`
[rate_limits.oauth]
requests = 2
[rate_limits.oauth.plans.enterprise]
requests = 100000
`);
    const ent = await createTestApp(ctx, { ...confidential, environment: 'production', plan: 'enterprise' });
    const ip = '192.0.2.30';
    // The client id alone, a wrong secret, and an authorize request naming it: all at the default.
    const named = await request('/v1/oauth/token', exchangeAs({ clientId: ent.clientId }), ip);
    expect(limits(named)).toMatchObject({ limit: '2', remaining: '1' });
    expect(((await named.json()) as any).error).toBe('invalid_client');
    const wrong = await request(
      '/v1/oauth/token',
      exchangeAs({ clientId: ent.clientId, clientSecret: 'cs_live_wrong' }),
      ip,
    );
    expect(limits(wrong)).toMatchObject({ limit: '2', remaining: '0' });
    const over = await request('/v1/oauth/token', exchangeAs({ clientId: ent.clientId }), ip);
    expect(over.status).toBe(429);
    expect((await request(authorizePath(ent), undefined, ip)).status).toBe(429);
    // With its secret the same address is within the plan's limit: the request was counted once.
    const real = await request('/v1/oauth/token', exchangeAs(ent), ip);
    expect(limits(real)).toMatchObject({ limit: '100000', remaining: String(100000 - 5) });
    // A public client cannot authenticate, so naming one never raises the limit either.
    const pub = await createTestApp(ctx, { ...publicApp, plan: 'enterprise' });
    const p = await request('/v1/oauth/token', exchangeAs(pub), '192.0.2.31');
    expect(limits(p)).toMatchObject({ limit: '2', remaining: '1' });
    expect(limits(await request(authorizePath(pub), undefined, '192.0.2.32'))).toMatchObject({ limit: '2' });
  });

  test('IPv6 clients count per /64, and an IPv4-mapped address as its IPv4 address', async () => {
    const { app, request } = await setup('[rate_limits.oauth]\nrequests = 5');
    const statuses: number[] = [];
    for (let i = 1; i <= 8; i++)
      statuses.push((await request(authorizePath(app), undefined, `2001:db8:7:1:${i}::${i}`)).status);
    expect(statuses).toEqual([303, 303, 303, 303, 303, 429, 429, 429]);
    // The next /64 has a bucket of its own.
    expect((await request(authorizePath(app), undefined, '2001:db8:7:2::1')).status).toBe(303);
    for (let i = 0; i < 4; i++) await request(authorizePath(app), undefined, '192.0.2.40');
    expect((await request(authorizePath(app), undefined, '::ffff:192.0.2.40')).status).toBe(303);
    expect((await request(authorizePath(app), undefined, '::ffff:c000:228')).status).toBe(429);
    expect((await request(authorizePath(app), undefined, '192.0.2.41')).status).toBe(303);
  });

  test('over the limit at authorize, a browser gets an HTML page with Retry-After, not JSON', async () => {
    const { app, request } = await setup('[rate_limits.oauth]\nrequests = 1\nwindow = "10m"');
    const browser = { headers: { Accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } };
    expect((await request(authorizePath(app), browser)).status).toBe(303);
    const over = await request(authorizePath(app), browser);
    expect(over.status).toBe(429);
    expect(over.headers.get('content-type')).toStartWith('text/html');
    expect(over.headers.get('retry-after')).toBe('600');
    expect(limits(over)).toEqual({ limit: '1', remaining: '0', reset: '600' });
    expect(over.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await over.text();
    expect(html).toContain('Too many sign-in requests');
    expect(html).toContain('Wait 10 minutes');
    expect(html).toContain(over.headers.get('x-request-id')!);
    expect(html).not.toContain('RATE_LIMIT_EXCEEDED');
  });

  test('expired windows are cleaned up', async () => {
    const { ctx, app, request } = await setup('');
    await request(authorizePath(app), undefined, '192.0.2.20');
    const count = () =>
      ctx.db.sql.prepare<{ n: number }>('SELECT count(*) AS n FROM rate_limit_buckets').get()!.n;
    expect(count()).toBe(1);
    const now = Math.floor(ctx.clock.now().getTime() / 1000);
    deleteExpiredOAuthState(ctx, now + 599);
    expect(count()).toBe(1);
    deleteExpiredOAuthState(ctx, now + 600);
    expect(count()).toBe(0);
  });

  test('the sign-up counters are cleaned up once their window (an hour) ended', async () => {
    const { ctx } = await setup('');
    countSignupAttempt(ctx, '192.0.2.21');
    const count = () =>
      ctx.db.sql.prepare<{ n: number }>('SELECT count(*) AS n FROM rate_limit_buckets').get()!.n;
    expect(count()).toBe(1);
    const now = Math.floor(ctx.clock.now().getTime() / 1000);
    deleteExpiredOAuthState(ctx, now + 3599);
    expect(count()).toBe(1);
    deleteExpiredOAuthState(ctx, now + 3600);
    expect(count()).toBe(0);
  });
});

test("a turn's buckets, of two windows and more than one statement holds, are each counted as if alone", async () => {
  ctx = await testContext({
    extra:
      '[rate_limits.oauth]\nrequests = 3\nwindow = "1m"\n[rate_limits.userinfo]\nrequests = 3\nwindow = "10m"',
  });
  const c = ctx;
  const now = Math.floor(c.clock.now().getTime() / 1000);
  // One bucket already counted in its window, one whose window ended two minutes ago.
  c.db.sql
    .prepare('INSERT INTO rate_limit_buckets (key, window_start, count) VALUES (?, ?, ?)')
    .run('oauth:k1', now - 30, 2);
  c.db.sql
    .prepare('INSERT INTO rate_limit_buckets (key, window_start, count) VALUES (?, ?, ?)')
    .run('oauth:k2', now - 120, 3);
  const keys = Array.from({ length: 37 }, (_, i) => `k${i}`);
  // In one turn: k0 five times, every other key once, in both buckets.
  const hits = await Promise.all(
    ['oauth', 'userinfo'].flatMap((bucket) =>
      ['k0', 'k0', 'k0', 'k0', ...keys].map((key) => countRequest(c, bucket as 'oauth', key, undefined)),
    ),
  );
  const remaining = (from: number) => hits.slice(from, from + 41).map((h) => h.remaining);
  const fresh = Array.from({ length: 34 }, () => 2);
  for (const [from, reset] of [
    [0, 60],
    [41, 600],
  ] as const) {
    expect(remaining(from)).toEqual([2, 1, 0, 0, 0, from ? 2 : 0, 2, ...fresh]);
    // Only k0's fourth and fifth: k1 reached the limit, not past it.
    expect(hits.slice(from, from + 41).filter((h) => !h.allowed)).toHaveLength(2);
    expect(hits[from + 6]!.reset).toBe(reset);
  }
  expect(hits[5]!.reset).toBe(30);
  const count = (key: string) =>
    c.db.sql.prepare<{ count: number }>('SELECT count FROM rate_limit_buckets WHERE key = ?').get(key)?.count;
  expect([count('oauth:k0'), count('oauth:k1'), count('oauth:k2'), count('oauth:k36')]).toEqual([5, 3, 1, 1]);
  expect([count('userinfo:k0'), count('userinfo:k1'), count('userinfo:k36')]).toEqual([5, 1, 1]);
});

// A turn whose write never ran (the database was locked past the wait) must not stay open: every later
// request would be added to it and refused with its error until a restart.
test('a turn whose commit failed is closed: the next request is counted', async () => {
  ctx = await testContext({ engine: 'sqlite', extra: '[rate_limits.oauth]\nrequests = 5' });
  const c = ctx;
  const other = new Database(join(c.dir, 'verity.db'));
  c.db.sql.exec('PRAGMA busy_timeout = 20');
  other.exec('BEGIN IMMEDIATE');
  try {
    await expect(countRequest(c, 'oauth', 'k', undefined)).rejects.toThrow(/locked|busy/i);
  } finally {
    other.exec('ROLLBACK');
    other.close();
  }
  expect(await countRequest(c, 'oauth', 'k', undefined)).toMatchObject({ allowed: true, remaining: 4 });
});

test('the middleware serves any bucket, keyed as the caller says', async () => {
  ctx = await testContext({ extra: '[rate_limits.capabilities]\nrequests = 2\nwindow = "1m"' });
  const c = ctx;
  const app = new Hono<AppEnv>();
  app.use(requestContext(c));
  app.use(rateLimit(c, 'capabilities', (x) => x.req.header('x-key') ?? 'none'));
  app.get('/x', () => new Response('ok', { headers: { 'Content-Type': 'text/plain' } }));
  const get = (key: string) => app.request('http://h/x', { headers: { 'x-key': key } }, { ip: '1.2.3.4' });
  expect(limits(await get('a'))).toEqual({ limit: '2', remaining: '1', reset: '60' });
  expect((await get('a')).status).toBe(200);
  expect((await get('a')).status).toBe(429);
  expect((await get('b')).status).toBe(200);
});
