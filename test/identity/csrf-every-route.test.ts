import { afterEach, expect, setDefaultTimeout, test } from 'bun:test';
import { pageRoutes } from '../../src/app.ts';
import { P, type Portal, page, portal, signUp } from '../developer/portal-helpers.ts';
import { settledWriteCount } from '../helpers/db-probes.ts';
import { Browser, open } from './flow-helpers.ts';

// One developer account costs an argon2id hash.
setDefaultTimeout(30_000);

let p: Portal;
afterEach(() => p?.cleanup());

/** Every POST route of the identity experience and the developer portal, as registered. */
async function formRoutes(ctx: Portal['ctx']): Promise<string[]> {
  const paths = (await pageRoutes(ctx))
    .filter((r) => r.method === 'POST' && (r.path.startsWith('/identity/') || r.path.startsWith(`${P}/`)))
    .map((r) => r.path);
  return [...new Set(paths)];
}

/**
 * RP-initiated logout's own form POST comes from the relying party's site by design (RP-Initiated
 * Logout §2); it changes nothing, answering with the same request as a GET, which asks before anything
 * ends. The confirmation that does end the session (`/identity/logout/confirm`) is checked like the rest.
 */
const CROSS_SITE_BY_DESIGN = ['/identity/logout'];

/** A concrete address for a route pattern (`:id`, `:env{sandbox|production}`). */
const concrete = (pattern: string) =>
  pattern.replace(/:env\{[^}]+\}/g, 'sandbox').replace(/:(\w+)/g, (_, name: string) => `${name}_x1`);

test('every form route refuses a post without the session’s CSRF token, and nothing changes', async () => {
  p = await portal();
  const routes = await formRoutes(p.ctx);
  // The enumeration really sees both surfaces.
  expect(routes.length).toBeGreaterThanOrEqual(30);
  expect(routes).toContain('/identity/authorize/:id/consent');
  expect(routes).toContain('/identity/account/consents/:id/revoke');
  expect(routes).toContain(`${P}/apps/:id/delete`);
  expect(routes).toContain('/identity/logout/confirm');

  const person = new Browser(p.app);
  const { csrf: accountCsrf } = await open(person, '/identity/account');
  expect(
    (await person.post('/identity/account/signin/persona', { csrf_token: accountCsrf, persona: 'ada' }))
      .status,
  ).toBe(303);
  const developer = await signUp(p, 'alice@example.com');
  // A token that is real, but another session's.
  const stranger = new Browser(p.app);
  const foreignToken = (await page(stranger, `${P}/signin`)).csrf;
  expect(foreignToken.length).toBeGreaterThanOrEqual(43);

  const before = await settledWriteCount(p.ctx.db);
  for (const route of routes) {
    const b = route.startsWith('/identity/') ? person : developer;
    const url = concrete(route);
    if (CROSS_SITE_BY_DESIGN.includes(route)) {
      const res = await b.post(url, { state: 's' }, { origin: 'https://rp.example' });
      expect({ route, status: res.status, location: res.headers.get('location') }).toEqual({
        route,
        status: 303,
        location: `${url}?state=s`,
      });
      continue;
    }
    const attempts: Record<string, RequestInit> = {
      'no token': { body: 'persona=ada&decision=allow' },
      'empty token': { body: 'csrf_token=&decision=allow' },
      'another session’s token': { body: `csrf_token=${foreignToken}&decision=allow` },
      'token in a JSON body': {
        body: JSON.stringify({ csrf_token: foreignToken }),
        headers: { 'content-type': 'application/json' },
      },
    };
    for (const [name, init] of Object.entries(attempts)) {
      const res = await b.request(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: b.origin, ...init.headers },
        body: init.body,
      });
      expect({ route, name, status: res.status }).toEqual({ route, name, status: 403 });
      expect(res.headers.get('content-type')).toStartWith('text/html');
    }
  }
  expect(await settledWriteCount(p.ctx.db)).toBe(before);
  // Both are still signed in.
  expect(await (await person.get('/identity/account')).text()).not.toContain('name="password"');
  expect((await developer.get(`${P}/apps`)).status).toBe(200);
});
