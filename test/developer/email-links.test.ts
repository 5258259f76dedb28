import { afterAll, afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { argon2id } from 'hash-wasm';
import type { Browser as Chromium } from 'playwright-core';
import { configurePasswordHashing, verifyPassword } from '../../src/crypto/password.ts';
import { authenticateApiKey, createApiKey } from '../../src/developer/api-key.store.ts';
import { createDeveloper, findDeveloperByEmail } from '../../src/developer/developer.store.ts';
import { createEmailToken, emailTokenOwner } from '../../src/developer/email-token.store.ts';
import { resetPassword } from '../../src/portal/email-links.ts';
import { linkIn, type Mailbox, startMailbox } from '../email/mailbox.ts';
import { launchChromium } from '../helpers/chromium.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import {
  Browser,
  createApp_,
  formPost,
  P,
  PASSWORD,
  type Portal,
  page,
  portal,
  signUp,
  submit,
  submitPage,
} from './portal-helpers.ts';

setDefaultTimeout(60_000);

const NEW_PASSWORD = 'a brand new passphrase';

describe('email verification and password reset, through real mail and Chromium', () => {
  let box: Mailbox;
  let server: TestServer;
  let chromium: Chromium;
  /** The address the portal's CSRF check expects (base_url), not the listener's 127.0.0.1. */
  let site: string;
  beforeAll(async () => {
    box = await startMailbox();
    server = await startTestServer({
      extra: `[developer]\nsignup = "open"\n[email]\ntransport = "smtp"\nhost = "127.0.0.1"\nport = ${box.port}\nstarttls = false`,
    });
    chromium = await launchChromium();
    site = `http://localhost:${server.port}`;
  });
  afterAll(async () => {
    await chromium?.close();
    await server?.stop();
    await box?.close();
  });

  test('sign-up mails a link; until it is followed the account is sandbox only; it works once', async () => {
    const tab = await chromium.newPage();
    await tab.goto(`${site}${P}/signup`);
    await tab.getByLabel('Email').fill('new@example.com');
    await tab.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await tab.getByLabel('Confirm password').fill(PASSWORD);
    const mail = box.next('new@example.com');
    await tab.getByRole('button', { name: 'Create account' }).click();
    await tab.waitForURL(/\/account\?/);
    expect(await tab.textContent('main')).toContain('We sent a verification link to new@example.com');
    expect(await tab.textContent('main')).toContain('Not verified');

    // Production API keys are refused with a clear message; sandbox ones are fine.
    await tab.goto(`${site}${P}/keys`);
    const refused = await tab.evaluate(async (base) => {
      const form = document.querySelector('form[action$="/keys"]') as HTMLFormElement;
      const body = new URLSearchParams(new FormData(form) as unknown as Record<string, string>);
      body.set('environment', 'production');
      const res = await fetch(`${base}/keys`, { method: 'POST', body });
      return { status: res.status, text: await res.text() };
    }, `${site}${P}`);
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('Verify your email address (new@example.com) before using production');

    const link = linkIn(await mail);
    expect(link).toStartWith(`${site}${P}/verify-email/vfy_`);
    // Only the SHA-256 of the token is stored.
    const token = link.split('/').pop()!;
    expect(
      JSON.stringify(server.ctx.db.sql.prepare('SELECT * FROM developer_email_tokens').all()),
    ).not.toContain(token);

    await tab.goto(link);
    expect(findDeveloperByEmail(server.ctx.db, 'new@example.com')!.emailVerified).toBe(false);
    await tab.getByRole('button', { name: 'Verify email address' }).click();
    await tab.getByText('Your email address is verified').waitFor();
    expect(findDeveloperByEmail(server.ctx.db, 'new@example.com')!.emailVerified).toBe(true);
    await tab.goto(`${site}${P}/account`);
    expect(await tab.textContent('main')).toContain('Verified');
    expect(await tab.textContent('main')).not.toContain('Not verified');

    // Single use.
    await tab.goto(link);
    await tab.getByRole('button', { name: 'Verify email address' }).click();
    await tab.getByText('unknown, has expired or has already been used').waitFor();
    await tab.close();
  });

  test('"Forgot password?" mails a single-use link that sets a new password and ends sessions', async () => {
    const tab = await chromium.newPage();
    // Signed in with the old password in another browser context: that session must end.
    const other = await chromium.newPage();
    await other.goto(`${site}${P}/signin`);
    await other.getByLabel('Email').fill('new@example.com');
    await other.getByLabel('Password').fill(PASSWORD);
    await other.getByRole('button', { name: 'Sign in' }).click();
    await other.waitForURL(/\/apps$/);

    await tab.goto(`${site}${P}/signin`);
    await tab.getByRole('link', { name: 'Forgot password?' }).click();
    await tab.getByLabel('Email').fill('new@example.com');
    const mail = box.next('new@example.com');
    await tab.getByRole('button', { name: 'Send reset link' }).click();
    await tab.getByText('If an account exists for that address').waitFor();
    const link = linkIn(await mail);
    expect(link).toStartWith(`${site}${P}/reset-password/rst_`);

    await tab.goto(link);
    await tab.getByLabel('New password').fill(NEW_PASSWORD);
    await tab.getByLabel('Confirm password').fill(NEW_PASSWORD);
    await tab.getByRole('button', { name: 'Set new password' }).click();
    await tab.waitForURL(/\/signin\?reset=1$/);
    expect(await tab.textContent('main')).toContain('Your password was changed');
    await tab.getByLabel('Email').fill('new@example.com');
    await tab.getByLabel('Password').fill(NEW_PASSWORD);
    await tab.getByRole('button', { name: 'Sign in' }).click();
    await tab.waitForURL(/\/apps$/);

    await other.goto(`${site}${P}/apps`);
    expect(other.url()).toEndWith(`${P}/signin`);

    const again = await tab.goto(link);
    expect(again?.status()).toBe(404);
    expect(await tab.textContent('main')).toContain('unknown, has expired or has already been used');
    await tab.close();
    await other.close();
  });
});

describe('links and rules', () => {
  let p: Portal;
  afterEach(() => p?.cleanup());

  /** The link of the last message the log transport wrote. */
  const lastLink = (lines: string[]) => /https?:\/\/\S+/.exec(lines.at(-1) ?? '')![0].replace(/"$/, '');

  async function loggingPortal() {
    const lines: string[] = [];
    p = await portal();
    p.ctx.email = { send: async (m) => void lines.push(m.text) };
    return lines;
  }

  const path = (url: string) => new URL(url).pathname;

  /** The token endpoint's answer to the client's secret with a made-up code. */
  const tokenAnswer = async (client: { id: string; secret: string }) => {
    const res = await p.app.request('/v1/oauth/token', {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${btoa(`${client.id}:${client.secret}`)}`,
      },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: 'made-up',
        redirect_uri: 'https://rp.example/callback',
      }),
    });
    const { error } = (await res.json()) as { error: string };
    return { status: res.status, error, challenge: res.headers.get('www-authenticate') };
  };
  /** Whether the token endpoint takes the client's secret (a made-up code is then an invalid_grant). */
  const clientAuthenticates = async (client: { id: string; secret: string }) =>
    (await tokenAnswer(client)).error !== 'invalid_client';
  // Where an authorization request for the client lands: 303 to sign in, or 400 for an unknown address.
  const authorizeStatus = async (clientId: string) => {
    const q = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: 'https://rp.example/callback',
      scope: 'openid',
      state: 'state-123',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    });
    return (await p.app.request(`/v1/oauth/authorize?${q}`)).status;
  };
  const endpointCount = (applicationId: string) =>
    p.ctx.db.sql
      .prepare<{ n: number }>('SELECT count(*) AS n FROM webhook_endpoints WHERE application_id = ?')
      .get(applicationId)!.n;

  test('a reset request answers the same for unknown and known addresses, and mails only the known', async () => {
    const lines = await loggingPortal();
    await signUp(p, 'known@example.com');
    lines.length = 0;
    const answer = async (email: string) => {
      const res = await submit(new Browser(p.app), `${P}/forgot-password`, `${P}/forgot-password`, { email });
      return {
        status: res.status,
        text: (await res.text()).replace(/value="[^"]+"/g, '').replace(/nonce="[^"]+"/g, ''),
      };
    };
    const known = await answer('known@example.com');
    const unknown = await answer('nobody@example.com');
    expect(known.status).toBe(200);
    expect(unknown).toEqual(known);
    await Bun.sleep(0);
    expect(lines.length).toBe(1);
  });

  test('links expire: reset after an hour, verification after a day', async () => {
    const lines = await loggingPortal();
    await signUp(p, 'dev@example.com', { verified: false });
    const verify = path(lastLink(lines));
    await submit(new Browser(p.app), `${P}/forgot-password`, `${P}/forgot-password`, {
      email: 'dev@example.com',
    });
    await Bun.sleep(0);
    const reset = path(lastLink(lines));
    p.ctx.clock.advance(3600_000);
    expect((await new Browser(p.app).get(reset)).status).toBe(404);
    const r = await submit(new Browser(p.app), `${P}/signin`, reset, {
      password: NEW_PASSWORD,
      confirm: NEW_PASSWORD,
    });
    expect(r.status).toBe(404);
    p.ctx.clock.advance(23 * 3600_000);
    const v = await submit(new Browser(p.app), verify, verify, {});
    expect(v.status).toBe(404);
    expect(findDeveloperByEmail(p.ctx.db, 'dev@example.com')!.emailVerified).toBe(false);
  });

  test('a reset of an address not yet verified takes back every secret and address made in its name', async () => {
    const lines = await loggingPortal();
    // Someone signs up with an address that is not theirs, takes a sandbox key, creates an application
    // (seeing its client secret) and a webhook endpoint (seeing its signing secret).
    const squatter = await signUp(p, 'owner@example.com', { verified: false });
    const dev = findDeveloperByEmail(p.ctx.db, 'owner@example.com')!;
    const squatted = await createApiKey(p.ctx.db, p.ctx.clock, dev.developerId, 'sandbox');
    const { html, applicationId } = await createApp_(squatter);
    const client = { id: /cid_test_[\w-]+/.exec(html)![0], secret: /cs_test_[\w-]+/.exec(html)![0] };
    const hooks = `${P}/apps/${applicationId}/sandbox/webhooks`;
    await submitPage(squatter, `${hooks}/new`, hooks, {
      url: 'https://hooks.example/in',
      events: ['webhook.test'],
    });
    expect(await clientAuthenticates(client)).toBe(true);
    expect(endpointCount(applicationId)).toBe(1);
    expect(await authorizeStatus(client.id)).toBe(303);
    // The address's owner takes the account back with "Forgot password?".
    await submit(new Browser(p.app), `${P}/forgot-password`, `${P}/forgot-password`, {
      email: 'owner@example.com',
    });
    await Bun.sleep(0);
    const reset = path(lastLink(lines));
    const r = await submit(new Browser(p.app), reset, reset, {
      password: NEW_PASSWORD,
      confirm: NEW_PASSWORD,
    });
    expect(r.status).toBe(303);
    expect(await authenticateApiKey(p.ctx.db, p.ctx.clock, squatted.key)).toBeUndefined();
    expect(await clientAuthenticates(client)).toBe(false);
    expect(await tokenAnswer(client)).toEqual({
      status: 401,
      error: 'invalid_client',
      challenge: expect.stringMatching(/^Basic /),
    });
    expect(endpointCount(applicationId)).toBe(0);
    // The redirect URI the squatter registered no longer receives codes: the owner registers their own.
    expect(await authorizeStatus(client.id)).toBe(400);
    // Once the address is verified, a reset leaves the owner's own keys and secrets alone.
    const own = await createApiKey(p.ctx.db, p.ctx.clock, dev.developerId, 'sandbox');
    const owner = new Browser(p.app);
    await submit(owner, `${P}/signin`, `${P}/signin`, { email: 'owner@example.com', password: NEW_PASSWORD });
    // The taken-back application still opens, for the owner to register addresses and a secret.
    expect((await owner.get(`${P}/apps/${applicationId}`)).status).toBe(200);
    const ownApp = await createApp_(owner);
    const ownClient = {
      id: /cid_test_[\w-]+/.exec(ownApp.html)![0],
      secret: /cs_test_[\w-]+/.exec(ownApp.html)![0],
    };
    await submit(new Browser(p.app), `${P}/forgot-password`, `${P}/forgot-password`, {
      email: 'owner@example.com',
    });
    await Bun.sleep(0);
    const again = path(lastLink(lines));
    expect(
      (await submit(new Browser(p.app), again, again, { password: PASSWORD, confirm: PASSWORD })).status,
    ).toBe(303);
    expect(await authenticateApiKey(p.ctx.db, p.ctx.clock, own.key)).toBeDefined();
    expect(await clientAuthenticates(ownClient)).toBe(true);
    expect(await authorizeStatus(ownClient.id)).toBe(303);
  });

  test('a newer verification link replaces the older one', async () => {
    const lines = await loggingPortal();
    const b = await signUp(p, 'dev@example.com', { verified: false });
    const first = path(lastLink(lines));
    const { csrf } = await page(b, `${P}/account`);
    const resent = await b.post(`${P}/account/verify-email`, { csrf_token: csrf });
    expect(resent.status).toBe(303);
    const second = path(lastLink(lines));
    expect(second).not.toBe(first);
    expect((await submit(new Browser(p.app), first, first, {})).status).toBe(404);
    expect((await submit(new Browser(p.app), second, second, {})).status).toBe(200);
  });

  test('an unverified developer creates sandbox applications but cannot request production review', async () => {
    p = await portal();
    const b = await signUp(p, 'dev@example.com', { verified: false });
    const { res, applicationId } = await createApp_(b);
    expect(res.status).toBe(200);
    expect(applicationId).not.toBe('');
    const form = await b.get(`${P}/apps/${applicationId}/review`);
    expect(form.status).toBe(403);
    expect(await form.text()).toContain('you can create sandbox applications only');
    const { csrf } = await page(b, `${P}/apps/${applicationId}`);
    const post = await b.post(`${P}/apps/${applicationId}/review`, {
      csrf_token: csrf,
      justification: 'Shop',
    });
    expect(post.status).toBe(403);
    expect(p.ctx.db.sql.prepare('SELECT count(*) AS n FROM production_reviews').get()).toEqual({ n: 0 });
  });

  test('operator-created and invited developers count as verified', async () => {
    p = await portal();
    const { developerId } = createDeveloper(p.ctx.db, p.ctx.clock, { email: 'op@example.com' });
    expect(findDeveloperByEmail(p.ctx.db, 'op@example.com')).toMatchObject({
      developerId,
      emailVerified: true,
    });
  });

  test('sign-ups are throttled per client address; the refused one creates nothing', async () => {
    p = await portal();
    for (let i = 0; i < 5; i++) await signUp(p, `dev${i}@example.com`);
    const res = await submit(new Browser(p.app), `${P}/signup`, `${P}/signup`, {
      email: 'dev5@example.com',
      password: PASSWORD,
      confirm: PASSWORD,
    });
    expect(res.status).toBe(429);
    expect(await res.text()).toContain('Too many accounts');
    expect(findDeveloperByEmail(p.ctx.db, 'dev5@example.com')).toBeUndefined();
    // Another address is not affected.
    const elsewhere = await submit(new Browser(p.app, '203.0.113.50'), `${P}/signup`, `${P}/signup`, {
      email: 'dev5@example.com',
      password: PASSWORD,
      confirm: PASSWORD,
    });
    expect(elsewhere.status).toBe(303);
    // Asking whether an address has an account counts too: the limit bounds what one client learns.
    const probe = await submit(new Browser(p.app), `${P}/signup`, `${P}/signup`, {
      email: 'dev0@example.com',
      password: PASSWORD,
      confirm: PASSWORD,
    });
    expect(probe.status).toBe(429);
    expect(await probe.text()).not.toContain('already registered');
  });

  test('a resent verification mail counts against the same limit, and over it says so', async () => {
    p = await portal({ extra: 'signups_per_ip = 1' });
    // The sign-up itself used the address's one request.
    const b = await signUp(p, 'dev@example.com', { verified: false });
    const res = await submit(b, `${P}/account`, `${P}/account/verify-email`, {});
    expect(res.status).toBe(429);
    expect(await res.text()).toContain('Too many emails were requested from your address.');
  });

  test('a reset link posted many times at once costs one hash; one the pool could not hash stays usable', async () => {
    const lines = await loggingPortal();
    await signUp(p, 'dev@example.com');
    await submit(new Browser(p.app), `${P}/forgot-password`, `${P}/forgot-password`, {
      email: 'dev@example.com',
    });
    await Bun.sleep(0);
    const reset = path(lastLink(lines));
    const post = await formPost(new Browser(p.app), reset, reset, {
      password: NEW_PASSWORD,
      confirm: NEW_PASSWORD,
    });
    try {
      // No worker free: the hash cannot be made, and the link is given back.
      await configurePasswordHashing({ size: 1, maxQueue: 0 });
      expect((await post()).status).toBe(503);
      // One hash at a time: of six posts at once, one sets the password; the rest find the link used.
      await configurePasswordHashing({ size: 1, maxQueue: 1 });
      const statuses = (await Promise.all(Array.from({ length: 6 }, post))).map((r) => r.status);
      expect(statuses.sort()).toEqual([303, 404, 404, 404, 404, 404]);
    } finally {
      await configurePasswordHashing();
    }
  });

  test('a reset link replaced by a newer one while its hash waited stays dead', async () => {
    p = await portal();
    const { developerId } = createDeveloper(p.ctx.db, p.ctx.clock, { email: 'dev@example.com' });
    const link = () =>
      createEmailToken(p.ctx.db, p.ctx.clock, { developerId, purpose: 'reset_password', ttlSeconds: 3600 });
    const owner = (token: string) => emailTokenOwner(p.ctx.db, p.ctx.clock, token, 'reset_password');
    const first = await link();
    // A slow check holds the only worker, so the reset's hash waits and then gives up.
    const slow = await argon2id({
      password: 'x',
      salt: new Uint8Array(16).fill(1),
      parallelism: 1,
      iterations: 4,
      memorySize: 131072,
      hashLength: 32,
      outputType: 'encoded',
    });
    try {
      await configurePasswordHashing({ size: 1, queueTimeoutMs: 150 });
      const holding = verifyPassword('y', slow);
      const reset = resetPassword(p.ctx, first, { password: NEW_PASSWORD, confirm: NEW_PASSWORD }).catch(
        () => {},
      );
      await Bun.sleep(30);
      // Meanwhile the developer asks for a new link, which cancels the first.
      const second = await link();
      await reset;
      await holding;
      expect(await owner(second)).toBe(developerId);
      expect(await owner(first)).toBeUndefined();
    } finally {
      await configurePasswordHashing();
    }
  });

  test('a reset with a made-up link is refused before any password is hashed', async () => {
    p = await portal();
    const b = new Browser(p.app);
    // A hashing pool that takes no job: a hash attempted would answer 503.
    await configurePasswordHashing({ size: 1, maxQueue: 0 });
    try {
      const form = `${P}/reset-password/made-up-by-anyone`;
      const res = await submit(b, `${P}/forgot-password`, form, {
        password: NEW_PASSWORD,
        confirm: NEW_PASSWORD,
      });
      expect(res.status).toBe(404);
    } finally {
      await configurePasswordHashing();
    }
  });
});
