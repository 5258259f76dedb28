import { afterEach, expect, setDefaultTimeout, test } from 'bun:test';
import { P, PASSWORD, type Portal, page, portal, signUp, submit } from '../developer/portal-helpers.ts';
import { Browser, open } from './flow-helpers.ts';

// Argon2id hashes for the developer accounts.
setDefaultTimeout(30_000);

let p: Portal;
afterEach(() => p?.cleanup());

const DEV = '__Host-verity_dev';
const PERSON = '__Host-verity_session';

/** A browser holding only the given cookie: what an attacker who planted or kept it would have. */
function withCookie(name: string, value: string) {
  const b = new Browser(p.app, '203.0.113.9');
  b.cookies.set(name, value);
  return b;
}

test('portal sign-up, sign-in and sign-out each give a new session id; a planted or kept id opens nothing', async () => {
  p = await portal();
  // Sign-up: the id the attacker could have planted before is not the one signed in.
  const victim = new Browser(p.app);
  await page(victim, `${P}/signup`);
  const planted = victim.cookies.get(DEV)!;
  await submit(victim, `${P}/signup`, `${P}/signup`, {
    email: 'alice@example.com',
    name: 'alice',
    password: PASSWORD,
    confirm: PASSWORD,
  });
  const signedUp = victim.cookies.get(DEV)!;
  expect(signedUp).not.toBe(planted);
  expect((await withCookie(DEV, planted).get(`${P}/apps`)).status).toBe(303);
  expect((await withCookie(DEV, signedUp).get(`${P}/apps`)).status).toBe(200);

  // Sign-out ends the id for good, not only in this browser.
  const oldToken = (await page(victim, `${P}/apps`)).csrf;
  await submit(victim, `${P}/apps`, `${P}/signout`, {});
  expect(victim.cookies.get(DEV)).toBeUndefined();
  expect((await withCookie(DEV, signedUp).get(`${P}/apps`)).status).toBe(303);

  // Sign-in: a fresh id and a fresh CSRF token.
  await page(victim, `${P}/signin`);
  const beforeSignin = victim.cookies.get(DEV)!;
  const res = await submit(victim, `${P}/signin`, `${P}/signin`, {
    email: 'alice@example.com',
    password: PASSWORD,
  });
  expect(res.status).toBe(303);
  const signedIn = victim.cookies.get(DEV)!;
  expect(signedIn).not.toBe(beforeSignin);
  expect((await withCookie(DEV, beforeSignin).get(`${P}/apps`)).status).toBe(303);
  const newToken = (await page(victim, `${P}/apps`)).csrf;
  expect(newToken).not.toBe(oldToken);
  // The token of the session before sign-in no longer works.
  const stale = await victim.request(`${P}/keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: victim.origin },
    body: new URLSearchParams({ csrf_token: oldToken, label: 'x', environment: 'sandbox' }).toString(),
  });
  expect(stale.status).toBe(403);
});

test('account page sign-in gives a new session id; the planted one stays signed out', async () => {
  p = await portal();
  const b = new Browser(p.app);
  const { csrf } = await open(b, '/identity/account');
  const planted = b.cookies.get(PERSON)!;
  expect(
    (await b.post('/identity/account/signin/persona', { csrf_token: csrf, persona: 'ada' })).status,
  ).toBe(303);
  const mine = b.cookies.get(PERSON)!;
  expect(mine).not.toBe(planted);
  const SIGNED_IN = 'action="/identity/account/signout"';
  const attacker = await (await withCookie(PERSON, planted).get('/identity/account')).text();
  expect(attacker).toContain('action="/identity/account/signin"');
  expect(attacker).not.toContain(SIGNED_IN);
  expect(await (await b.get('/identity/account')).text()).toContain(SIGNED_IN);
  // The portal and the identity experience never accept each other's cookie.
  const dev = await signUp(p, 'bob@example.com');
  expect((await withCookie(DEV, mine).get(`${P}/apps`)).status).toBe(303);
  const crossed = await (await withCookie(PERSON, dev.cookies.get(DEV)!).get('/identity/account')).text();
  expect(crossed).not.toContain(SIGNED_IN);
});
