import { afterEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { P, PASSWORD, submit } from '../developer/portal-helpers.ts';
import { settledWriteCount } from '../helpers/db-probes.ts';
import { Browser, type Flow, flow, open, passFace, signInPersona } from './flow-helpers.ts';

setDefaultTimeout(30_000);

let f: Flow;
afterEach(() => f?.cleanup());

/** Records every Set-Cookie header the browser receives. */
function recording(b: Browser): string[] {
  const seen: string[] = [];
  const request = b.request.bind(b);
  b.request = async (url, init) => {
    const res = await request(url, init);
    seen.push(...res.headers.getSetCookie());
    return res;
  };
  return seen;
}

test('every cookie either surface sets is __Host-, Secure, HttpOnly, SameSite=Lax, Path=/, without Domain; a session ends with the session', async () => {
  f = await flow({ extra: '[developer]\nsignup = "open"' });
  const seen = recording(f.browser);
  // Identity: a flow (new session, rotation at sign-in), the account page, sign-out.
  const path = await f.authorize();
  await signInPersona(f.browser, path);
  await passFace(f.browser, path);
  await open(f.browser, '/identity/account');
  const { csrf } = await open(f.browser, '/identity/account');
  await f.browser.post('/identity/account/signout', { csrf_token: csrf });
  // Portal: sign-up, sign-out, sign-in.
  const dev = new Browser(f.app);
  const devSeen = recording(dev);
  await submit(dev, `${P}/signup`, `${P}/signup`, {
    email: 'alice@example.com',
    name: 'alice',
    password: PASSWORD,
    confirm: PASSWORD,
  });
  await submit(dev, `${P}/apps`, `${P}/signout`, {});
  await submit(dev, `${P}/signin`, `${P}/signin`, { email: 'alice@example.com', password: PASSWORD });
  const all = [...seen, ...devSeen];
  const live = all.filter((c) => !/max-age=0/i.test(c));
  const cleared = all.filter((c) => /max-age=0/i.test(c));
  expect(live.length).toBeGreaterThanOrEqual(5);
  expect(cleared.length).toBe(2);
  const absolute = f.ctx.config.identity.session_absolute / 1000;
  // A password sign-in also makes the browser known to the account (known-browsers.ts), for longer.
  const known = live.filter((c) => /^__Host-verity_dev_known=/.test(c));
  expect(known).toHaveLength(1);
  expect(known[0]).toMatch(/^__Host-verity_dev_known=[\w-]{22}\.[\w-]{43}; Max-Age=15552000;/);
  for (const c of live) {
    for (const attr of [/; Secure/, /; HttpOnly/, /; SameSite=Lax/, /; Path=\/(;|$)/])
      expect({ c, attr: attr.test(c) }).toEqual({ c, attr: true });
    expect(c).not.toMatch(/Domain=/i);
    if (known.includes(c)) continue;
    expect(c).toMatch(/^__Host-verity_(session|dev)=[\w-]{43,};/);
    const maxAge = Number(/Max-Age=(\d+)/i.exec(c)?.[1]);
    expect(maxAge).toBeGreaterThan(0);
    expect(maxAge).toBeLessThanOrEqual(absolute);
  }
  // Sign-out clears the cookie with the attributes that let the browser replace it.
  for (const c of cleared) {
    expect(c).toMatch(/^__Host-verity_(session|dev)=;/);
    expect(c).toMatch(/; Path=\//);
    expect(c).toMatch(/; Secure/);
  }
});

describe('a page view without a session', () => {
  test('writes nothing to the database, and its form still validates', async () => {
    f = await flow();
    const before = await settledWriteCount(f.ctx.db);
    // Cookieless GETs of the hosted pages and the portal, as a crawler or a flood would send them.
    for (const path of [
      '/identity/account',
      '/identity/authorize/unknown',
      '/developer/signin',
      '/developer/signup',
    ])
      for (let i = 0; i < 3; i++) await new Browser(f.app).get(path);
    const sessions = () => f.ctx.db.sql.prepare('SELECT * FROM sessions').all().length;
    expect(await settledWriteCount(f.ctx.db)).toBe(before);
    expect(sessions()).toBe(0);
    // The page's CSRF token is bound to the browser's cookie: it validates without a row, not with another cookie.
    const b = new Browser(f.app);
    const { csrf } = await open(b, '/identity/account');
    const other = new Browser(f.app);
    await other.get('/identity/account');
    const form = { csrf_token: csrf, persona: 'ada' };
    expect((await other.post('/identity/account/signin/persona', form)).status).toBe(403);
    const ok = await b.post('/identity/account/signin/persona', form);
    expect(ok.status).toBe(303);
    expect(sessions()).toBe(1);
  });
});

test('the hosted pages and the portal are limited per address, in memory, with their own 429 page', async () => {
  f = await flow({ extra: '[rate_limits.web]\nrequests = 3\nwindow = "1m"' });
  const before = await settledWriteCount(f.ctx.db);
  const b = new Browser(f.app, '2001:db8:5:5::1');
  for (let i = 1; i <= 3; i++) {
    const res = await b.get('/identity/account');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-remaining')).toBe(String(3 - i));
  }
  // Another address of the same IPv6 /64 shares the count; the portal shares it too.
  for (const path of ['/identity/account', '/developer/signin']) {
    const over = await new Browser(f.app, '2001:db8:5:5::2').get(path);
    expect(over.status).toBe(429);
    expect(over.headers.get('retry-after')).toBe('60');
    expect(over.headers.get('content-type')).toStartWith('text/html');
    expect(await over.text()).toContain(over.headers.get('x-request-id')!);
  }
  expect((await new Browser(f.app, '2001:db8:5:6::1').get('/developer/signin')).status).toBe(200);
  expect(await settledWriteCount(f.ctx.db)).toBe(before);
  f.ctx.clock.advance(60_000);
  expect((await b.get('/identity/account')).status).toBe(200);
});
