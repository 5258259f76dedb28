import { afterEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { sha256Hex } from '../../src/crypto/tokens.ts';
import { createSessionStore } from '../../src/web/session.store.ts';
import {
  Browser,
  csrfOf,
  type Flow,
  flow,
  location,
  open,
  passFace,
  signInPersona,
  storedSession,
} from './flow-helpers.ts';

// Argon2id hashing and per-test databases are slow on a busy machine.
setDefaultTimeout(20_000);

let f: Flow;
afterEach(() => f?.cleanup());

const COOKIE = '__Host-verity_session';
const status = (path: string) =>
  f.ctx.db.sql
    .prepare<{ status: string }>('SELECT status FROM authorization_requests WHERE id = ?')
    .get(path.split('/').pop()!)!.status;

describe('session cookie', () => {
  test('__Host- cookie: Secure, HttpOnly, SameSite=Lax, Path=/, no Domain; only its hash is stored', async () => {
    f = await flow();
    const path = await f.authorize();
    const res = await f.browser.get(path);
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith(`${COOKIE}=`))!;
    expect(cookie).toBeDefined();
    expect(cookie).toMatch(/; Secure/);
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Lax/);
    expect(cookie).toMatch(/; Path=\//);
    expect(cookie).not.toMatch(/Domain=/i);
    // Anonymous, the session has no row; signed in, only the cookie's hash is stored.
    const rows = () => f.ctx.db.sql.prepare<{ id_hash: string }>('SELECT id_hash FROM sessions').all();
    expect(rows()).toEqual([]);
    await signInPersona(f.browser, path);
    const value = f.browser.cookies.get(COOKIE)!;
    expect(value.length).toBeGreaterThanOrEqual(43);
    expect(rows().map((r) => r.id_hash)).toEqual([await sha256Hex(value)]);
    expect(JSON.stringify(rows())).not.toContain(value);
  });

  test('signing in rotates the session id (a planted id is worthless)', async () => {
    f = await flow();
    const path = await f.authorize();
    await f.browser.get(path);
    const before = f.browser.cookies.get(COOKIE);
    await signInPersona(f.browser, path);
    const after = f.browser.cookies.get(COOKIE);
    expect(after).toBeDefined();
    expect(after).not.toBe(before);
    // The old id no longer resumes anything.
    const old = new Browser(f.app);
    old.cookies.set(COOKIE, before!);
    expect((await old.get(`${path}/face`)).status).toBe(403);
    // The request followed the rotation.
    expect(location(await passFace(f.browser, path))).toBe(`${path}/consent`);
  });

  test('idle timeout: a session unused for session_idle ends', async () => {
    f = await flow({ extra: '[identity]\ninteraction_ttl = "2h"' });
    const path = await f.authorize();
    await signInPersona(f.browser, path);
    f.ctx.clock.advance(30 * 60_000 - 1000);
    expect((await f.browser.get(`${path}/face`)).status).toBe(200);
    f.ctx.clock.advance(30 * 60_000);
    // A new anonymous session: the request, bound to the ended one, is refused.
    const res = await f.browser.get(`${path}/face`);
    expect(res.status).toBe(403);
    expect(await res.text()).toContain('another browser session');
  });

  test('absolute timeout: activity does not keep a session beyond session_absolute', async () => {
    f = await flow();
    const store = createSessionStore(f.ctx.db);
    const t = { idle: 1800, absolute: 12 * 3600 };
    let now = 1_000_000;
    const { token } = await storedSession(f.ctx.db, 'identity', now, t);
    for (let i = 0; i < 12 * 4 - 1; i++) {
      now += 15 * 60;
      expect(await store.resume('identity', token, now, t)).toBeDefined();
    }
    now += 15 * 60;
    expect(await store.resume('identity', token, now, t)).toBeUndefined();
    expect(f.ctx.db.sql.prepare('SELECT * FROM sessions').all()).toHaveLength(0);
  });

  test('a session of another kind is not accepted', async () => {
    f = await flow();
    const store = createSessionStore(f.ctx.db);
    const t = { idle: 1800, absolute: 3600 };
    const { token } = await storedSession(f.ctx.db, 'developer', 100, t);
    expect(await store.resume('identity', token, 101, t)).toBeUndefined();
    expect(await store.resume('developer', token, 101, t)).toBeDefined();
  });
});

describe('CSRF', () => {
  const attempt = async (fields: Record<string, string>, origin?: string | null) => {
    f = await flow();
    const path = await f.authorize();
    await open(f.browser, path);
    const res = await f.browser.post(
      `${path}/signin`,
      { persona: 'ada', outcome: 'none', ...fields },
      { origin },
    );
    return { res, path };
  };

  test('a form without the token is refused and changes nothing', async () => {
    const { res, path } = await attempt({});
    expect(res.status).toBe(403);
    expect(status(path)).toBe('pending');
  });

  test('a wrong token is refused', async () => {
    const { res, path } = await attempt({ csrf_token: 'x'.repeat(43) });
    expect(res.status).toBe(403);
    expect(status(path)).toBe('pending');
  });

  test('the token of another session is refused', async () => {
    f = await flow();
    const other = new Browser(f.app);
    const { csrf: otherToken } = await open(other, await f.authorize({}, other));
    const path = await f.authorize();
    await open(f.browser, path);
    const res = await f.browser.post(`${path}/signin`, { csrf_token: otherToken, persona: 'ada' });
    expect(res.status).toBe(403);
    expect(status(path)).toBe('pending');
  });

  test('a cross-origin POST is refused even with the right token', async () => {
    f = await flow();
    const path = await f.authorize();
    const { csrf } = await open(f.browser, path);
    for (const origin of ['https://evil.example', 'null', 'http://localhost:8081']) {
      const res = await f.browser.post(`${path}/signin`, { csrf_token: csrf, persona: 'ada' }, { origin });
      expect(res.status).toBe(403);
      const html = await res.text();
      const nonce = /style-src 'nonce-([^']+)'/.exec(res.headers.get('content-security-policy')!)![1];
      expect(html).toContain(`<style nonce="${nonce}">`);
    }
    expect(status(path)).toBe('pending');
    // Fetch Metadata saying the request came from another site.
    for (const site of ['cross-site', 'same-site', 'none']) {
      const res = await f.browser.request(`${path}/signin`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': site },
        body: new URLSearchParams({ csrf_token: csrf, persona: 'ada' }).toString(),
      });
      expect(res.status).toBe(403);
      expect(await res.text()).toContain('sent from another site');
    }
    expect(status(path)).toBe('pending');
    // Same origin, or no Origin header at all, with the token: accepted.
    const ok = await f.browser.post(`${path}/signin`, { csrf_token: csrf, persona: 'ada' }, { origin: null });
    expect(ok.status).toBe(303);
  });

  test('Origin: null (sent under Referrer-Policy: no-referrer) is accepted only from the same origin', async () => {
    f = await flow();
    const path = await f.authorize();
    const { csrf } = await open(f.browser, path);
    const post = (site: string) =>
      f.browser.request(`${path}/signin`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          origin: 'null',
          'sec-fetch-site': site,
        },
        body: new URLSearchParams({ csrf_token: csrf, persona: 'ada' }).toString(),
      });
    expect((await post('cross-site')).status).toBe(403);
    const ok = await post('same-origin');
    expect(ok.status).toBe(303);
  });

  test('every form on every page carries the token', async () => {
    f = await flow();
    const path = await f.authorize();
    const pages = [(await open(f.browser, path)).html];
    await signInPersona(f.browser, path);
    pages.push((await open(f.browser, `${path}/face`)).html);
    await passFace(f.browser, path);
    pages.push((await open(f.browser, `${path}/consent`)).html);
    for (const html of pages) {
      const forms = html.match(/<form[\s\S]*?<\/form>/g) ?? [];
      expect(forms.length).toBeGreaterThan(0);
      for (const form of forms) {
        expect(form).toContain('method="post"');
        expect(csrfOf(form).length).toBeGreaterThanOrEqual(43);
        expect(csrfOf(form)).toBe(csrfOf(html));
      }
    }
  });
});

describe('request bound to the browser session', () => {
  test('another browser opening the request URL gets an error page and cannot continue it', async () => {
    f = await flow();
    const path = await f.authorize();
    await open(f.browser, path);
    const attacker = new Browser(f.app, '203.0.113.66');
    const page = await attacker.get(path);
    expect(page.status).toBe(403);
    const html = await page.text();
    expect(html).toContain('started in another browser session');
    expect(html).toContain(page.headers.get('x-request-id')!);
    const { csrf } = await open(attacker, path);
    expect(csrf).toBeString();
    expect((await attacker.post(`${path}/signin`, { csrf_token: csrf, persona: 'ada' })).status).toBe(403);
    expect(status(path)).toBe('pending');
    // The owner carries on.
    expect(location(await signInPersona(f.browser, path))).toBe(`${path}/face`);
  });

  test('a request first opened by another browser cannot be completed by the victim either', async () => {
    f = await flow();
    const path = await f.authorize();
    const attacker = new Browser(f.app, '203.0.113.66');
    await attacker.get(path);
    expect((await f.browser.get(path)).status).toBe(403);
  });

  test('an unknown or expired request shows an error page, never a redirect', async () => {
    f = await flow();
    const unknown = await f.browser.get('/identity/authorize/nope');
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toContain('text/html');
    const path = await f.authorize();
    f.ctx.clock.advance(f.ctx.config.identity.interaction_ttl + 60_000);
    const expired = await f.browser.get(path);
    expect(expired.status).toBe(404);
    expect(await expired.text()).toContain('unknown, has expired or is already finished');
  });
});

describe('security headers', () => {
  test('pages send a nonce CSP, frame-ancestors none, no referrer, nosniff, no-store', async () => {
    f = await flow();
    const res = await f.browser.get(await f.authorize());
    const csp = res.headers.get('content-security-policy')!;
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)![1]!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain(`style-src 'nonce-${nonce}'`);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("base-uri 'none'");
    expect(csp).toContain("form-action 'self' https://rp.example");
    expect(csp).not.toContain('unsafe-inline');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const html = await res.text();
    expect(html).toContain(`<style nonce="${nonce}">`);
    // A fresh nonce per response.
    const again = await f.browser.get(await f.authorize());
    expect(again.headers.get('content-security-policy')).not.toContain(nonce);
  });

  test('error pages carry the headers too', async () => {
    f = await flow();
    const res = await f.browser.get('/identity/authorize/unknown');
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
  });

  test('redirects after a POST are 303', async () => {
    f = await flow();
    const path = await f.authorize();
    const res = await signInPersona(f.browser, path);
    expect(res.status).toBe(303);
    expect((await passFace(f.browser, path)).status).toBe(303);
  });
});
