import { afterEach, describe, expect, test } from 'bun:test';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pkg from '../../package.json' with { type: 'json' };
import { createApp } from '../../src/app.ts';
import { publishNext } from '../../src/keys/rotation.ts';
import { unix } from '../../src/platform/clock.ts';
import { testContext } from '../helpers/context.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let server: TestServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

describe('operations endpoints', () => {
  test('/healthz answers while the process is up', async () => {
    server = await startTestServer();
    const res = await fetch(`${server.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok', version: pkg.version });
  });

  test('/readyz is ready with a writable database and an active key, 503 without an active key', async () => {
    server = await startTestServer();
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready' });

    server.ctx.db.sql.prepare("DELETE FROM signing_keys WHERE state = 'active'").run();
    const notReady = await fetch(`${server.url}/readyz`);
    expect(notReady.status).toBe(503);
    expect(notReady.headers.get('x-request-id')).toMatch(UUID);
    expect(await notReady.json()).toEqual({ status: 'unavailable', problems: ['no active signing key'] });
    // Liveness does not depend on readiness.
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  test('/readyz is 503 when the active signing key cannot be loaded', async () => {
    server = await startTestServer();
    const active = server.ctx.keys.store.active()!.kid;
    rmSync(join(server.dir, 'keys', `${active}.jwk.json`));
    server.ctx.keys.invalidate(); // as after a key change made by another process
    const res = await fetch(`${server.url}/readyz`);
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({
      status: 'unavailable',
      problems: ['signing key or JWKS unavailable'],
    });
  });

  test('an unreadable key file other than the active one is skipped: JWKS, signing and /readyz carry on', async () => {
    server = await startTestServer();
    const active = server.ctx.keys.store.active()!.kid;
    await publishNext(server.ctx, unix(server.clock), 'cli');
    const next = server.ctx.keys.store.nextSet().find((k) => k.alg === 'RS256')!.kid;
    writeFileSync(join(server.dir, 'keys', `${next}.jwk.json`), '{ not json');
    server.ctx.keys.invalidate();
    const jwks = await fetch(`${server.url}/.well-known/jwks.json`);
    expect(jwks.status).toBe(200);
    const listed = (await jwks.json()).keys.map((k: { kid: string }) => k.kid);
    expect(listed[0]).toBe(active);
    expect(listed).toHaveLength(5);
    expect(listed).not.toContain(next);
    expect((await server.ctx.keys.signingKey()).kid).toBe(active);
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
  });

  test('/metrics is Prometheus text with request counters by route pattern, never the raw path', async () => {
    server = await startTestServer();
    for (let i = 0; i < 3; i++) await fetch(`${server.url}/healthz`);
    await fetch(`${server.url}/nothing-here/raw-secret-value`);
    await fetch(`${server.url}/v1/oauth/authorize?client_id=cid_test_x&code=raw-code-value`);
    // The token endpoint, which does the middleware's work itself, is counted like any route.
    await fetch(`${server.url}/v1/oauth/token`, { method: 'POST', body: 'code=raw-code-value' });
    // So are discovery and the JWKS, which the listener serves ahead of hono too.
    await fetch(`${server.url}/.well-known/openid-configuration`);
    for (let i = 0; i < 2; i++) await fetch(`${server.url}/.well-known/jwks.json`);

    const res = await fetch(`${server.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toStartWith('text/plain; version=0.0.4');
    const text = await res.text();
    expect(text).toContain('# TYPE verity_http_requests_total counter');
    expect(text).toContain('verity_http_requests_total{method="GET",route="/healthz",status="200"} 3');
    expect(text).toMatch(/verity_http_requests_total\{method="GET",route="[^"]*",status="404"\} 1/);
    expect(text).toContain('# TYPE verity_http_request_duration_seconds histogram');
    expect(text).toMatch(/verity_http_request_duration_seconds_count\{route="\/healthz"\} 3/);
    expect(text).toContain(
      'verity_http_requests_total{method="POST",route="/v1/oauth/token",status="400"} 1',
    );
    expect(text).toMatch(/verity_http_request_duration_seconds_count\{route="\/v1\/oauth\/token"\} 1/);
    expect(text).toContain(
      'verity_http_requests_total{method="GET",route="/.well-known/openid-configuration",status="200"} 1',
    );
    expect(text).toContain(
      'verity_http_requests_total{method="GET",route="/.well-known/jwks.json",status="200"} 2',
    );
    expect(text).not.toContain('raw-secret-value');
    expect(text).not.toContain('raw-code-value');
    expect(text).not.toContain('cid_test_x');
    // Every sample line is `name{labels} value` or `name value`.
    for (const line of text.trim().split('\n')) {
      if (line.startsWith('#')) expect(line).toMatch(/^# (HELP|TYPE) [a-z_:][a-z0-9_:]* .+$/);
      else expect(line).toMatch(/^[a-z_:][a-z0-9_:]*(\{[^}]*\})? -?[0-9.e+-]+$/);
    }
  });

  test('every response carries X-Request-Id, whatever its status or surface', async () => {
    server = await startTestServer();
    const requests: [string, RequestInit?][] = [
      ['/healthz'],
      ['/readyz'],
      ['/metrics'],
      ['/.well-known/jwks.json'],
      ['/.well-known/openid-configuration'],
      ['/v1/capabilities/scopes'],
      ['/v1/oauth/authorize'],
      ['/v1/oauth/token', { method: 'POST' }],
      ['/v1/userinfo'],
      ['/identity/'],
      ['/developer/'],
      ['/does-not-exist'],
      ['/healthz', { method: 'HEAD' }],
      ['/healthz', { method: 'DELETE' }],
    ];
    const seen = new Set<string>();
    for (const [path, init] of requests) {
      const res = await fetch(`${server.url}${path}`, { redirect: 'manual', ...init });
      await res.arrayBuffer();
      const id = res.headers.get('x-request-id');
      expect({ path, status: res.status, id }).toEqual({
        path,
        status: res.status,
        id: expect.stringMatching(UUID),
      });
      seen.add(id!);
    }
    expect(seen.size).toBe(requests.length);
  });

  test('a caller-supplied request id is never adopted, well-formed or not', async () => {
    server = await startTestServer();
    for (const bad of ['trace-abc_123', 'a b', 'x'.repeat(300), 'id"><script>', 'id\tinjected']) {
      const res = await fetch(`${server.url}/does-not-exist`, { headers: { 'X-Request-Id': bad } });
      const id = res.headers.get('x-request-id')!;
      expect(id).toMatch(UUID);
      expect((await res.json()).error.requestId).toBe(id);
    }
  });
});

test('/readyz writes to the database at most once a second, by the clock', async () => {
  const ctx = await testContext();
  try {
    const app = createApp(ctx);
    // The probe writes one row; removed after each write, it is back only when the probe wrote again.
    const probed = () => {
      const n = ctx.db.sql.prepare("DELETE FROM rate_limit_buckets WHERE key = '_readyz'").run().changes;
      return n > 0;
    };
    const ready = async () => (await app.request('http://h/readyz', undefined, { ip: '192.0.2.1' })).status;
    expect(await ready()).toBe(200);
    expect(probed()).toBe(true);
    for (let i = 0; i < 5; i++) expect(await ready()).toBe(200);
    ctx.clock.advance(999);
    expect(await ready()).toBe(200);
    expect(probed()).toBe(false);
    ctx.clock.advance(1);
    expect(await ready()).toBe(200);
    expect(probed()).toBe(true);
  } finally {
    ctx.cleanup();
  }
});
