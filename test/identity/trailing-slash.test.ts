import { afterEach, describe, expect, test } from 'bun:test';
import { createApp } from '../../src/app.ts';
import { type TestContext, testContext } from '../helpers/context.ts';

let ctx: TestContext;
afterEach(() => ctx?.cleanup());

async function app(extra = '') {
  ctx = await testContext({ extra });
  return createApp(ctx);
}

const where = async (a: ReturnType<typeof createApp>, path: string) => {
  const res = await a.request(path);
  return { path, status: res.status, location: res.headers.get('location') };
};

describe('addresses with a trailing slash', () => {
  test('portal and identity pages answer the same with or without it (a permanent redirect, query kept)', async () => {
    const a = await app();
    const cases: [string, number, string | null][] = [
      ['/developer/', 308, '/developer'],
      ['/developer/signin/', 308, '/developer/signin'],
      ['/developer/apps/?env=production', 308, '/developer/apps?env=production'],
      ['/identity/account/', 308, '/identity/account'],
      ['/identity/account/?done=revoked', 308, '/identity/account?done=revoked'],
      ['/identity/authorize/req_x/', 308, '/identity/authorize/req_x'],
      ['/identity', 303, '/identity/account'],
      ['/identity/', 303, '/identity/account'],
    ];
    for (const [path, status, location] of cases)
      expect(await where(a, path)).toEqual({ path, status, location });
    // Where the redirects lead is a page.
    expect((await a.request('/developer/signin')).status).toBe(200);
    expect((await a.request('/identity/account')).status).toBe(200);
  });

  test('a doubled slash never turns into a redirect to another host', async () => {
    // The portal on its own host is mounted at "/".
    const a = await app('[server]\ndeveloper_url = "http://dev.localhost:8080"');
    const on = (host: string, path: string) => a.request(`http://${host}${path}`);
    for (const [host, path] of [
      ['dev.localhost:8080', '//evil.example/'],
      ['dev.localhost:8080', '/signin//evil.example/'],
      ['localhost', '/identity/account//evil.example/'],
    ] as const) {
      const res = await on(host, path);
      const location = res.headers.get('location');
      if (location !== null) {
        expect(location).toMatch(/^\/[^/\\]/);
        expect(new URL(location, `http://${host}`).host).toBe(host);
      }
    }
    const apps = await on('dev.localhost:8080', '/apps/');
    expect([apps.status, apps.headers.get('location')]).toEqual([308, '/apps']);
  });

  test('API paths are not touched', async () => {
    const a = await app();
    expect((await a.request('/v1/capabilities/countries/')).status).toBe(404);
    const res = await a.request('/developer/signin/', { method: 'POST' });
    expect(res.status).not.toBe(308);
  });
});
