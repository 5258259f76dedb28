import { afterEach, describe, expect, test } from 'bun:test';
import { generateKeyPair, SignJWT } from 'jose';
import { replacePostLogoutRedirectUris } from '../../src/apps/application.store.ts';
import { base64url } from '../../src/crypto/encoding.ts';
import { signJwt } from '../../src/keys/sign-jwt.ts';
import { jsonLogger } from '../../src/log.ts';
import { runtime } from '../../src/platform/runtime.ts';
import { DOCUMENT_PROOF_TYP } from '../../src/sdk/document-proof.ts';
import { createTestApp, type TestApp, type TestAppOptions } from '../helpers/apps.ts';
import {
  Browser,
  CALLBACK,
  callbackParams,
  decide,
  exchangeCode,
  type Flow,
  flow,
  location,
  open,
  passFace,
  pathOf,
  pkcePair,
} from './flow-helpers.ts';

/** OpenID Connect RP-Initiated Logout 1.0 at `<identity_url>/logout`, through the app's HTTP interface. */

const LOGOUT = '/identity/logout';
const SIGNED_OUT = 'https://rp.example/signed-out';

let f: Flow;
afterEach(() => f?.cleanup());

async function setup() {
  f = await flow();
  replacePostLogoutRedirectUris(f.ctx.db, f.client.environmentId, [SIGNED_OUT]);
  return f;
}

/** The sandbox flow for `client` in browser `b`, ending with the code exchanged; returns the ID token. */
async function signIn(client: TestApp = f.client, b: Browser = f.browser, persona = 'ada'): Promise<string> {
  const { verifier, challenge } = pkcePair();
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: CALLBACK,
    scope: 'openid email',
    state: 'state-123',
    nonce: 'nonce-123',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    purpose: 'Sign in',
  });
  const path = pathOf(location(await b.get(`/v1/oauth/authorize?${q}`)));
  const start = await open(b, path);
  if (start.res.status === 200)
    await b.post(`${path}/signin`, { csrf_token: start.csrf, persona, outcome: 'none' });
  let res = await passFace(b, path);
  if (location(res).endsWith('/consent')) res = await decide(b, path, 'allow');
  return (await exchangeCode(f.app, client, callbackParams(res).code!, verifier)).id_token;
}

/** Whether browser `b` is still signed in: a new authorization request skips the persona picker. */
async function signedIn(b: Browser = f.browser): Promise<boolean> {
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: f.client.clientId,
    redirect_uri: CALLBACK,
    scope: 'openid',
    state: 'state-123',
    nonce: 'nonce-123',
    code_challenge: pkcePair().challenge,
    code_challenge_method: 'S256',
  });
  const path = pathOf(location(await b.get(`/v1/oauth/authorize?${q}`)));
  const res = await b.get(path);
  if (res.status === 200) {
    expect(await res.text()).toContain('Choose a test persona');
    return false;
  }
  expect(res.status).toBe(303);
  return true;
}

/** Another application environment on the server, with `uri` as its one post-logout redirect URI. */
async function otherClient(uri: string, opts: Partial<TestAppOptions> = {}): Promise<TestApp> {
  const client = await createTestApp(f.ctx, {
    type: 'confidential',
    redirectUris: [CALLBACK],
    scopes: 'openid email',
    ...opts,
  });
  replacePostLogoutRedirectUris(f.ctx.db, client.environmentId, [uri]);
  return client;
}

const logout = (params: Record<string, string>, b: Browser = f.browser) =>
  b.get(`${LOGOUT}?${new URLSearchParams(params)}`);

const claimsOf = (jwt: string) => JSON.parse(atob(jwt.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/')));

/** A JWT signed with Verity's own active key, with whatever claims (and typ) a test needs. */
async function signedByVerity(claims: Record<string, unknown>, typ = 'JWT'): Promise<string> {
  const { kid, key } = await f.ctx.keys.signingKey();
  const input = `${base64url(JSON.stringify({ alg: 'RS256', kid, typ }))}.${base64url(JSON.stringify(claims))}`;
  return `${input}.${runtime.signRs256(key, input)}`;
}

/** Refused: 400 on the identity error page, no redirect anywhere, and the person still signed in. */
async function refused(res: Response, message: string) {
  expect(res.status).toBe(400);
  expect(location(res)).toBe('');
  expect(await res.text()).toContain(message);
  expect(await signedIn()).toBe(true);
}

describe('RP-initiated logout with id_token_hint', () => {
  test('ends the session and returns to the registered URI with state', async () => {
    await setup();
    const idToken = await signIn();
    expect(await signedIn()).toBe(true);
    const lines: string[] = [];
    f.ctx.log = jsonLogger('info', (l) => lines.push(l));
    const res = await logout({ id_token_hint: idToken, post_logout_redirect_uri: SIGNED_OUT, state: 'xyz' });
    expect(res.status).toBe(303);
    expect(location(res)).toBe(`${SIGNED_OUT}?state=xyz`);
    // Its security event carries the id of the logout request.
    expect(lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'security event')).toEqual([
      expect.objectContaining({ event: 'signout', requestId: res.headers.get('X-Request-Id') }),
    ]);
    expect(f.browser.setCookies.join()).toMatch(/__Host-verity_session=;/);
    expect(await signedIn()).toBe(false);
    // Consents stay: signing out is not disconnecting.
    const consents = f.ctx.db.sql.prepare<{ n: number }>(
      "SELECT COUNT(*) AS n FROM consents WHERE status = 'active'",
    );
    expect(consents.get()!.n).toBe(1);
  });

  test.each(['ES256', 'EdDSA'])(
    'a hint signed with %s, as the client chose, ends the session too',
    async (alg) => {
      await setup();
      f.ctx.db.sql
        .prepare('UPDATE application_environments SET id_token_signed_response_alg = ? WHERE id = ?')
        .run(alg, f.client.environmentId);
      const idToken = await signIn();
      expect(JSON.parse(atob(idToken.split('.')[0]!.replace(/-/g, '+').replace(/_/g, '/'))).alg).toBe(alg);
      const res = await logout({ id_token_hint: idToken, post_logout_redirect_uri: SIGNED_OUT });
      expect(res.status).toBe(303);
      expect(location(res)).toBe(SIGNED_OUT);
      expect(await signedIn()).toBe(false);
    },
  );

  test('an expired hint is accepted; without a URI the signed-out page is shown', async () => {
    await setup();
    const idToken = await signIn();
    // Past the token's 15 minutes, within the session's 30 idle minutes.
    f.ctx.clock.advance(20 * 60_000);
    expect(claimsOf(idToken).exp * 1000).toBeLessThan(f.ctx.clock.now().getTime());
    const res = await logout({ id_token_hint: idToken });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('You are signed out of Verity.');
    expect(await signedIn()).toBe(false);
  });

  test('a hint for another person asks first and ends nothing', async () => {
    await setup();
    const benToken = await signIn(f.client, new Browser(f.app, '198.51.100.8'), 'ben');
    await signIn();
    const res = await logout({ id_token_hint: benToken });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('asks to sign you out');
    expect(await signedIn()).toBe(true);
  });

  test("another developer's hint for a shared persona asks first: it counts from this session's apps only", async () => {
    await setup();
    // Another developer's sandbox application, with a sign-out address of its own.
    const other = await otherClient('https://other.example/out');
    const othersAda = await signIn(other, new Browser(f.app, '203.0.113.66'), 'ada');
    // This browser signs in as Ada to its own developer's application only.
    const ownAda = await signIn();
    const res = await logout({
      id_token_hint: othersAda,
      post_logout_redirect_uri: 'https://other.example/out',
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('asks to sign you out');
    expect(await signedIn()).toBe(true);
    // The hint of an application this session signed in to still signs out at once.
    expect((await logout({ id_token_hint: ownAda })).status).toBe(200);
    expect(await signedIn()).toBe(false);
  });

  test("a client_id other than the hint's audience is refused", async () => {
    await setup();
    const second = await createTestApp(f.ctx, {
      type: 'confidential',
      redirectUris: [CALLBACK],
      scopes: 'openid email',
      name: 'Other Shop',
    });
    const idToken = await signIn();
    // §2: with both, the client_id must be the one the ID token was issued to.
    const res = await logout({ id_token_hint: idToken, client_id: second.clientId });
    await refused(res, 'client_id does not match the audience of id_token_hint.');
  });
});

describe('RP-initiated logout never redirects where it should not', () => {
  test('an unregistered post_logout_redirect_uri is refused', async () => {
    await setup();
    const idToken = await signIn();
    await refused(
      await logout({ id_token_hint: idToken, post_logout_redirect_uri: 'https://evil.example/' }),
      'post_logout_redirect_uri is not registered for this application.',
    );
    // Close is not equal: matching is exact.
    await refused(
      await logout({ id_token_hint: idToken, post_logout_redirect_uri: `${SIGNED_OUT}/` }),
      'not registered',
    );
  });

  test("another client's registered URI is refused", async () => {
    await setup();
    await otherClient('https://other.example/bye', { type: 'public', scopes: 'openid' });
    const idToken = await signIn();
    await refused(
      await logout({ id_token_hint: idToken, post_logout_redirect_uri: 'https://other.example/bye' }),
      'not registered',
    );
  });

  test('a URI registered for production only is refused for a sandbox client', async () => {
    await setup();
    await otherClient('https://live.example/bye', {
      scopes: 'openid',
      environment: 'production',
      applicationId: f.client.applicationId,
    });
    const idToken = await signIn();
    await refused(
      await logout({ id_token_hint: idToken, post_logout_redirect_uri: 'https://live.example/bye' }),
      'not registered',
    );
  });

  test('a hint with a forged signature, or from another issuer, is refused', async () => {
    await setup();
    const idToken = await signIn();
    const claims = claimsOf(idToken);
    const { kid } = await f.ctx.keys.signingKey();
    const { privateKey } = await generateKeyPair('RS256');
    const forged = await new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid }).sign(privateKey);
    await refused(
      await logout({ id_token_hint: forged, post_logout_redirect_uri: SIGNED_OUT }),
      'id_token_hint is not an ID token issued by this server.',
    );
    const tampered = `${idToken.split('.')[0]}.${base64url(JSON.stringify({ ...claims, aud: 'x' }))}.${idToken.split('.')[2]}`;
    await refused(await logout({ id_token_hint: tampered }), 'not an ID token issued by this server');
    const foreign = await signedByVerity({ ...claims, iss: 'https://other-issuer.example' });
    await refused(
      await logout({ id_token_hint: foreign, post_logout_redirect_uri: SIGNED_OUT }),
      'not an ID token issued by this server',
    );
    const unsigned = `${base64url(JSON.stringify({ alg: 'none' }))}.${idToken.split('.')[1]}.`;
    await refused(await logout({ id_token_hint: unsigned }), 'not an ID token issued by this server');
    // The same keys sign document proofs, which carry the same iss, aud and sub: not an ID token.
    const proof = await signedByVerity(claims, DOCUMENT_PROOF_TYP);
    await refused(
      await logout({ id_token_hint: proof, post_logout_redirect_uri: SIGNED_OUT }),
      'not an ID token issued by this server',
    );
  });

  test('client_id must be the audience of the hint, and be known', async () => {
    await setup();
    const idToken = await signIn();
    await refused(
      await logout({ id_token_hint: idToken, client_id: 'cid_test_unknown' }),
      'client_id does not match the audience',
    );
    const stranger = await signedByVerity({ ...claimsOf(idToken), aud: 'cid_test_nobody' });
    await refused(await logout({ id_token_hint: stranger }), 'Unknown client_id.');
    await refused(await logout({ client_id: 'cid_test_nobody' }), 'Unknown client_id.');
  });

  test('post_logout_redirect_uri without a client is refused', async () => {
    await setup();
    await signIn();
    await refused(
      await logout({ post_logout_redirect_uri: SIGNED_OUT }),
      'post_logout_redirect_uri needs id_token_hint or client_id.',
    );
  });
});

describe('RP-initiated logout without id_token_hint', () => {
  test('asks first: a link alone signs nobody out; the confirmed form does', async () => {
    await setup();
    await signIn();
    const ask = await logout({
      client_id: f.client.clientId,
      post_logout_redirect_uri: SIGNED_OUT,
      state: 's1',
    });
    expect(ask.status).toBe(200);
    const html = await ask.text();
    expect(html).toContain('Acme Shop asks to sign you out of Verity.');
    expect(ask.headers.get('content-security-policy')).toContain("form-action 'self' https://rp.example");
    expect(await signedIn()).toBe(true);

    const csrf = /name="csrf_token" value="([^"]+)"/.exec(html)![1]!;
    const fields = { client_id: f.client.clientId, post_logout_redirect_uri: SIGNED_OUT, state: 's1' };
    // Without the CSRF token, or from another site, the form changes nothing.
    expect((await f.browser.post(`${LOGOUT}/confirm`, fields)).status).toBe(403);
    expect(
      (
        await f.browser.post(
          `${LOGOUT}/confirm`,
          { ...fields, csrf_token: csrf },
          { origin: 'https://evil.example' },
        )
      ).status,
    ).toBe(403);
    expect(await signedIn()).toBe(true);
    // A URI swapped into the form is checked again.
    const swapped = await f.browser.post(`${LOGOUT}/confirm`, {
      ...fields,
      post_logout_redirect_uri: 'https://evil.example/',
      csrf_token: csrf,
    });
    await refused(swapped, 'not registered');

    const done = await f.browser.post(`${LOGOUT}/confirm`, { ...fields, csrf_token: csrf });
    expect(done.status).toBe(303);
    expect(location(done)).toBe(`${SIGNED_OUT}?state=s1`);
    expect(await signedIn()).toBe(false);
  });

  test('with nobody signed in there is nothing to ask: the signed-out page, or the registered URI', async () => {
    await setup();
    const page = await logout({});
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('You are signed out of Verity.');
    const back = await logout({ client_id: f.client.clientId, post_logout_redirect_uri: SIGNED_OUT });
    expect(back.status).toBe(303);
    expect(location(back)).toBe(SIGNED_OUT);
  });
});

describe('RP-initiated logout by POST', () => {
  test("the RP's cross-site form is answered with the same request as a GET", async () => {
    await setup();
    const idToken = await signIn();
    const params = { id_token_hint: idToken, post_logout_redirect_uri: SIGNED_OUT, state: 'p' };
    // A cross-site POST carries no SameSite=Lax cookie: sent without one, as a browser would.
    const res = await f.app.request(LOGOUT, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://rp.example' },
      body: new URLSearchParams(params).toString(),
    });
    expect(res.status).toBe(303);
    expect(pathOf(location(res))).toBe(`${LOGOUT}?${new URLSearchParams(params)}`);
    const followed = await f.browser.get(pathOf(location(res)));
    expect(location(followed)).toBe(`${SIGNED_OUT}?state=p`);
    expect(await signedIn()).toBe(false);
  });

  describe('a hint too long for a URL (an ID token carrying the photo)', () => {
    /** The person's ID token with a photo in it, as a claims request can ask for: over 100 KB. */
    async function withPhoto(idToken: string) {
      const photo = `data:image/jpeg;base64,/9j/${'A'.repeat(87_000)}`;
      const token = await signJwt(f.ctx.keys, 'JWT', { ...claimsOf(idToken), picture: photo });
      expect(token.length).toBeGreaterThan(100_000);
      return token;
    }
    const crossSite = (fields: Record<string, string>) =>
      f.app.request(LOGOUT, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://rp.example' },
        body: new URLSearchParams(fields).toString(),
      });
    const hiddenFields = (html: string) =>
      Object.fromEntries(
        [...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1], m[2]]),
      );

    test("is posted again from Verity's own page, with the session, and signs out at once", async () => {
      await setup();
      const hint = await withPhoto(await signIn());
      const fields = { id_token_hint: hint, post_logout_redirect_uri: SIGNED_OUT, state: 'p' };
      const page = await crossSite(fields);
      expect(page.status).toBe(200);
      // Where the re-posted form's answer redirects is allowed as a form action (Chrome checks it).
      expect(page.headers.get('content-security-policy')).toContain("form-action 'self' https://rp.example");
      const html = await page.text();
      expect(html).toContain(`<form method="post" action="${LOGOUT}" id="repost">`);
      expect(hiddenFields(html)).toEqual({ ...fields, reposted: '1' });
      // Nothing has ended yet: the cross-site request had no session.
      expect(await signedIn()).toBe(true);

      const done = await f.browser.post(LOGOUT, fields);
      expect(done.status).toBe(303);
      expect(location(done)).toBe(`${SIGNED_OUT}?state=p`);
      expect(await signedIn()).toBe(false);
    });

    test('naming someone else, asks first; with nobody signed in, just returns', async () => {
      await setup();
      const ben = await withPhoto(await signIn(f.client, new Browser(f.app, '198.51.100.8'), 'ben'));
      await signIn();
      const asked = await f.browser.post(LOGOUT, { id_token_hint: ben });
      expect(asked.status).toBe(200);
      expect(await asked.text()).toContain('asks to sign you out');
      expect(await signedIn()).toBe(true);

      const stranger = new Browser(f.app, '198.51.100.9');
      const back = await stranger.post(LOGOUT, { id_token_hint: ben, post_logout_redirect_uri: SIGNED_OUT });
      expect(location(back)).toBe(SIGNED_OUT);
      const here = await stranger.post(LOGOUT, { id_token_hint: ben, reposted: '1' });
      expect(here.status).toBe(200);
      expect(await here.text()).toContain('You are signed out of Verity.');
    });

    test('posted again from a page that still does not say it is ours, ends instead of looping', async () => {
      await setup();
      const hint = await withPhoto(await signIn());
      // A browser without Fetch Metadata, under the pages' no-referrer policy, sends Origin: null.
      const res = await f.browser.post(LOGOUT, { id_token_hint: hint, reposted: '1' }, { origin: 'null' });
      expect(res.status).toBe(400);
      expect(await res.text()).toContain('This browser does not say where its form came from.');
      expect(await signedIn()).toBe(true);
    });

    test('is checked before any page: a forged one is refused', async () => {
      await setup();
      const hint = await withPhoto(await signIn());
      const forged = `${hint.slice(0, -4)}AAAA`;
      await refused(
        await crossSite({ id_token_hint: forged, post_logout_redirect_uri: SIGNED_OUT }),
        'id_token_hint is not an ID token issued by this server.',
      );
    });
  });
});
