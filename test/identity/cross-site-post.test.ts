import { afterEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { Browser, type Flow, flow, location, open, passFace, signInPersona } from './flow-helpers.ts';

setDefaultTimeout(20_000);

let f: Flow;
afterEach(() => f?.cleanup());

const COOKIE = '__Host-verity_session';
const sessions = () => f.ctx.db.sql.prepare<{ n: number }>('SELECT count(*) AS n FROM sessions').get()!.n;

/**
 * A form on another site posting to us: the browser leaves out the SameSite=Lax cookie. `headers`
 * are what that browser adds (modern ones send Fetch Metadata and the foreign Origin, old ones may
 * send neither).
 */
async function crossSitePost(path: string, headers: Record<string, string>) {
  const res = await f.app.request(
    path,
    {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams({ decision: 'allow', persona: 'ada', csrf_token: 'guess' }).toString(),
    },
    { ip: '198.51.100.7' },
  );
  return res;
}

const BROWSERS: Record<string, Record<string, string>> = {
  'Fetch Metadata and Origin': { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' },
  'Fetch Metadata only': { 'sec-fetch-site': 'cross-site' },
  'a foreign Origin only': { origin: 'https://evil.example' },
  'neither header': {},
};

describe('a cross-site form post without the session cookie', () => {
  test('to the authorization flow is refused without a new session or cookie; the real session carries on', async () => {
    f = await flow();
    const path = await f.authorize();
    await signInPersona(f.browser, path);
    await passFace(f.browser, path);
    const mine = f.browser.cookies.get(COOKIE)!;
    const before = sessions();
    for (const [name, headers] of Object.entries(BROWSERS)) {
      for (const step of ['/consent', '/signin', '/face', '/face/unavailable']) {
        const res = await crossSitePost(`${path}${step}`, headers);
        expect({ name, step, status: res.status }).toEqual({ name, step, status: 403 });
        expect({ name, step, cookies: res.headers.getSetCookie() }).toEqual({ name, step, cookies: [] });
        expect(await res.text()).toContain('<html');
      }
    }
    expect(sessions()).toBe(before);
    // The person's own session still works: consent page, then Allow ends at the callback.
    expect(f.browser.cookies.get(COOKIE)).toBe(mine);
    const { csrf, res } = await open(f.browser, `${path}/consent`);
    expect(res.status).toBe(200);
    const done = await f.browser.post(`${path}/consent`, { csrf_token: csrf, decision: 'allow' });
    expect(done.status).toBe(303);
    expect(location(done)).toStartWith('https://rp.example/callback?');
  });

  test('to the account page is refused without a new session or cookie; the person stays signed in', async () => {
    f = await flow();
    const b = new Browser(f.app);
    const { csrf } = await open(b, '/identity/account');
    expect(
      (await b.post('/identity/account/signin/persona', { csrf_token: csrf, persona: 'ada' })).status,
    ).toBe(303);
    const mine = b.cookies.get(COOKIE)!;
    const before = sessions();
    for (const [name, headers] of Object.entries(BROWSERS)) {
      for (const action of ['/signout', '/signin/persona', '/applications/app_x/disconnect']) {
        const res = await crossSitePost(`/identity/account${action}`, headers);
        expect({ name, action, status: res.status }).toEqual({ name, action, status: 403 });
        expect({ name, action, cookies: res.headers.getSetCookie() }).toEqual({ name, action, cookies: [] });
      }
    }
    expect(sessions()).toBe(before);
    expect(b.cookies.get(COOKIE)).toBe(mine);
    const page = await (await b.get('/identity/account')).text();
    expect(page).toContain('Ada');
    expect(page).not.toContain('name="password"');
  });

  test('a page view without a cookie still starts a session (only posts never mint one)', async () => {
    f = await flow();
    const res = await f.app.request('/identity/account');
    expect(res.status).toBe(200);
    expect(res.headers.getSetCookie().some((c) => c.startsWith(`${COOKIE}=`))).toBe(true);
  });

  test('a same-site post whose session timed out is refused and mints nothing', async () => {
    f = await flow();
    const path = await f.authorize();
    const { csrf } = await open(f.browser, path);
    f.ctx.clock.advance(24 * 3600_000);
    const res = await f.browser.post(`${path}/signin`, { csrf_token: csrf, persona: 'ada' });
    expect(res.status).toBe(403);
    expect(res.headers.getSetCookie()).toEqual([]);
    expect(await res.text()).toContain('This form has expired');
    expect(sessions()).toBe(0);
  });
});
