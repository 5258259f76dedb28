import { afterEach, describe, expect, test } from 'bun:test';
import { createApp } from '../../src/app.ts';
import { API_SEGMENTS } from '../../src/config/schema.ts';
import { type TestContext, testContext } from '../helpers/context.ts';

let ctx: TestContext;
afterEach(() => ctx?.cleanup());

async function app(extra = '') {
  ctx = await testContext({ extra });
  return createApp(ctx);
}

describe('an unknown address under a surface', () => {
  test("gets that surface's 404 page, with its security headers; the API keeps its JSON", async () => {
    const a = await app();
    for (const path of ['/developer/nope', '/developer/signin/extra', '/developer/apps/app_x/nope']) {
      const res = await a.request(path);
      // A page behind sign-in first asks for it, as every private page does.
      if (res.status === 303) {
        expect(res.headers.get('location')).toBe('/developer/signin');
        continue;
      }
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
      expect(res.headers.get('content-type')).toStartWith('text/html');
      expect(res.headers.get('content-security-policy')).toContain('nonce-');
      expect(await res.text()).toContain('Page not found');
    }
    for (const path of [
      '/identity/nope',
      '/identity/account/nope',
      '/identity/authorize/req_x/nope',
      '/identity/logout/nope',
    ]) {
      const res = await a.request(path);
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
      expect(res.headers.get('content-type')).toStartWith('text/html');
      const html = await res.text();
      expect(html).toContain('There is no such page.');
      // The page's nonce is the one its policy allows (set once, where the surface's own ran first).
      const allowed = /script-src 'nonce-([^']+)'/.exec(res.headers.get('content-security-policy')!)?.[1];
      const used = [...html.matchAll(/nonce="([^"]+)"/g)].map((m) => m[1]);
      expect(used.length).toBeGreaterThan(0);
      expect({ path, used: [...new Set(used)] }).toEqual({ path, used: [allowed] });
    }
    const api = await a.request('/v1/nope');
    expect(api.status).toBe(404);
    expect((await api.json()).error.code).toBe('NOT_FOUND');
    // A neighbour of a surface's path is not under it.
    expect((await a.request('/developers')).headers.get('content-type')).toStartWith('application/json');
  });

  test("a surface at a host's root answers its own pages only, beside the other surface's path", async () => {
    const a = await app('[server]\nidentity_url = "http://localhost:8080"');
    expect((await a.request('/account/nope')).status).toBe(404);
    expect(await (await a.request('/account/nope')).text()).toContain('There is no such page.');
    // The portal's pages are not shadowed by the identity experience mounted at "/".
    expect((await a.request('/developer/signin')).status).toBe(200);
    expect(await (await a.request('/developer/nope')).text()).toContain('Page not found');
    expect((await a.request('/v1/nope')).headers.get('content-type')).toStartWith('application/json');
  });

  test('a surface at the root of a host of its own answers every address but the API and the probes', async () => {
    const a = await app(
      '[server]\nidentity_url = "http://id.localhost:8080"\ndeveloper_url = "http://dev.localhost:8080"',
    );
    for (const [host, text] of [
      ['http://id.localhost:8080', 'There is no such page.'],
      ['http://dev.localhost:8080', 'Page not found'],
    ] as const) {
      for (const path of ['/nope', '/v1x', '/developer/signin', '/identity/account', '/robots.txt']) {
        const res = await a.request(`${host}${path}`);
        expect({ path, status: res.status }).toEqual({ path, status: 404 });
        expect(res.headers.get('content-security-policy')).toContain('nonce-');
        expect(await res.text()).toContain(text);
      }
      for (const path of ['/v1/capabilities/scopes', '/.well-known/jwks.json', '/openapi.json']) {
        const res = await a.request(`${host}${path}`);
        expect({ path, status: res.status }).toEqual({ path, status: 404 });
        expect((await res.json()).error.code).toBe('NOT_FOUND');
      }
      expect((await a.request(`${host}/healthz`)).status).toBe(200);
    }
    // The identity host's own address leads to the account page, as a surface's path does.
    const root = await a.request('http://id.localhost:8080/', { redirect: 'manual' });
    expect(root.status).toBe(303);
    expect(root.headers.get('location')).toBe('/account');
  });

  test("one surface's path inside the other's: each answers its own", async () => {
    const a = await app(
      '[server]\nidentity_url = "http://localhost:8080/id"\ndeveloper_url = "http://localhost:8080/id/dev"',
    );
    expect((await a.request('/id/dev/signin')).status).toBe(200);
    expect(await (await a.request('/id/dev/nope')).text()).toContain('Page not found');
    expect(await (await a.request('/id/nope')).text()).toContain('There is no such page.');
  });
});

test('the API segments a surface may not lie under are every first segment of the API and operations', async () => {
  const a = await app();
  const segments = new Set(
    a.routes
      .map((r) => r.path.split('/')[1]!)
      .filter((s) => s !== '' && s !== '*' && s !== 'identity' && s !== 'developer'),
  );
  expect([...segments].sort()).toEqual([...API_SEGMENTS].sort());
});
