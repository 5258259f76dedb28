import { afterEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { approveReview, rejectReview } from '../../src/apps/production-review.ts';
import { configurePasswordHashing } from '../../src/crypto/password.ts';
import { sha256Hex } from '../../src/crypto/tokens.ts';
import { createInvitation, findDeveloperByEmail } from '../../src/developer/developer.store.ts';
import { developerSignIn } from '../../src/portal/account.ts';
import {
  apiKeyIdOn,
  Browser,
  createApp_,
  formPost,
  location,
  P,
  PASSWORD,
  type Portal,
  page,
  portal,
  signUp,
  submit,
  submitPage,
} from './portal-helpers.ts';

// Each account costs an argon2id hash (19 MiB, by design slow); a loaded machine needs the margin.
setDefaultTimeout(30_000);

let p: Portal;
afterEach(() => p?.cleanup());

describe('accounts', () => {
  test('open sign-up creates an account with an argon2id password and signs it in', async () => {
    p = await portal();
    const b = await signUp(p, 'Dev@Example.com');
    const { res, html } = await page(b, `${P}/apps`);
    expect(res.status).toBe(200);
    expect(html).toContain('Signed in as dev@example.com');
    const row = p.ctx.db.sql
      .prepare<{ password_hash: string }>('SELECT password_hash FROM developers WHERE email = ?')
      .get('dev@example.com')!;
    expect(row.password_hash).toStartWith('$argon2id$');
    expect(row.password_hash).not.toContain(PASSWORD);
  });

  test('sign-up errors are summarised and linked to their fields', async () => {
    p = await portal();
    const b = new Browser(p.app);
    const res = await submit(b, `${P}/signup`, `${P}/signup`, {
      email: 'not-an-email',
      password: 'short',
      confirm: 'short',
    });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain('href="#email"');
    expect(html).toContain('href="#password"');
    expect(html).toContain('id="password-error"');
    expect(html).toMatch(/id="password"[^>]*aria-invalid="true"/);
  });

  test('invite-only servers refuse sign-up; an invitation creates the account once', async () => {
    p = await portal({ signup: 'invite' });
    const ctx = p.ctx;
    const b = new Browser(p.app);
    expect(await (await b.get(`${P}/signup`)).text()).toContain('by invitation only');
    const refused = await submit(b, `${P}/signup`, `${P}/signup`, {
      email: 'x@example.com',
      password: PASSWORD,
      confirm: PASSWORD,
    });
    expect(refused.status).toBe(403);
    expect(findDeveloperByEmail(ctx.db, 'x@example.com')).toBeUndefined();

    const inv = await createInvitation(ctx.db, ctx.clock, { email: 'invited@example.com' });
    const url = `${P}/invitations/${inv.token}`;
    expect(await (await b.get(url)).text()).toContain('invited@example.com');
    const accepted = await submit(b, url, url, { name: 'Ivy', password: PASSWORD, confirm: PASSWORD });
    expect(accepted.status).toBe(303);
    expect(location(accepted)).toBe(`${P}/apps`);
    // Single use.
    const again = new Browser(p.app);
    expect((await again.get(url)).status).toBe(404);
  });

  test('an invitation posted many times at once costs one hash; one the pool could not hash stays usable', async () => {
    p = await portal({ signup: 'invite' });
    const inv = await createInvitation(p.ctx.db, p.ctx.clock, { email: 'invited@example.com' });
    const url = `${P}/invitations/${inv.token}`;
    const post = await formPost(new Browser(p.app), url, url, {
      name: 'Ivy',
      password: PASSWORD,
      confirm: PASSWORD,
    });
    try {
      // No worker free: the hash cannot be made, and the invitation is given back.
      await configurePasswordHashing({ size: 1, maxQueue: 0 });
      expect((await post()).status).toBe(503);
      expect(findDeveloperByEmail(p.ctx.db, 'invited@example.com')).toBeUndefined();
      // One hash at a time: of six posts at once, one creates the account; the rest find the link used.
      await configurePasswordHashing({ size: 1, maxQueue: 1 });
      const statuses = (await Promise.all(Array.from({ length: 6 }, post))).map((r) => r.status);
      expect(statuses.sort()).toEqual([303, 404, 404, 404, 404, 404]);
      expect(findDeveloperByEmail(p.ctx.db, 'invited@example.com')?.hasPassword).toBe(true);
    } finally {
      await configurePasswordHashing();
    }
  });

  test('an invitation whose account could not be written stays usable', async () => {
    p = await portal({ signup: 'invite' });
    const inv = await createInvitation(p.ctx.db, p.ctx.clock, { email: 'invited@example.com' });
    const url = `${P}/invitations/${inv.token}`;
    const b = new Browser(p.app);
    const form = { name: 'Ivy', password: PASSWORD, confirm: PASSWORD };
    // The database refuses the account's insert once.
    const sql = p.ctx.db.sql;
    if (p.ctx.db.engine === 'postgres') {
      sql.exec(
        "CREATE FUNCTION refuse_once() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'refused'; END $$ LANGUAGE plpgsql",
      );
      sql.exec(
        'CREATE TRIGGER refuse_once BEFORE INSERT ON developers FOR EACH ROW EXECUTE FUNCTION refuse_once()',
      );
    } else
      sql.exec(
        "CREATE TRIGGER refuse_once BEFORE INSERT ON developers BEGIN SELECT RAISE(ABORT, 'refused'); END",
      );
    expect((await submit(b, url, url, form)).status).toBe(500);
    sql.exec(
      p.ctx.db.engine === 'postgres' ? 'DROP TRIGGER refuse_once ON developers' : 'DROP TRIGGER refuse_once',
    );
    expect((await submit(b, url, url, form)).status).toBe(303);
    expect(findDeveloperByEmail(p.ctx.db, 'invited@example.com')?.hasPassword).toBe(true);
  });

  test('sign-in: same answer for unknown email and wrong password, throttled per account', async () => {
    p = await portal();
    await signUp(p, 'dev@example.com');
    const b = new Browser(p.app);
    const unknown = await submit(b, `${P}/signin`, `${P}/signin`, {
      email: 'nobody@example.com',
      password: 'x',
    });
    const wrong = await submit(b, `${P}/signin`, `${P}/signin`, { email: 'dev@example.com', password: 'x' });
    expect(unknown.status).toBe(401);
    expect(wrong.status).toBe(401);
    expect(await unknown.text()).toContain('The email or password is not correct.');
    for (let i = 0; i < 4; i++)
      await submit(b, `${P}/signin`, `${P}/signin`, { email: 'dev@example.com', password: 'x' });
    const blocked = await submit(b, `${P}/signin`, `${P}/signin`, {
      email: 'dev@example.com',
      password: PASSWORD,
    });
    expect(blocked.status).toBe(429);
    p.ctx.clock.advance(16 * 60_000);
    const ok = await submit(b, `${P}/signin`, `${P}/signin`, {
      email: 'dev@example.com',
      password: PASSWORD,
    });
    expect(ok.status).toBe(303);
  });

  test('sign-in guesses sent side by side stop at the per-account limit, the right password among them', async () => {
    p = await portal();
    await signUp(p, 'dev@example.com');
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        developerSignIn(p.ctx, {
          email: 'dev@example.com',
          password: i === 11 ? PASSWORD : `wrong-${i}`,
          ip: `192.0.2.${i + 1}`,
        }),
      ),
    );
    expect(results.filter((r) => !r.ok && r.reason === 'invalid')).toHaveLength(5);
    expect(results.slice(5).every((r) => !r.ok && r.reason === 'throttled')).toBe(true);
  });

  test('password change needs the current password and ends other sessions; sign-out ends this one', async () => {
    p = await portal();
    const a = await signUp(p, 'dev@example.com');
    const other = new Browser(p.app);
    await submit(other, `${P}/signin`, `${P}/signin`, { email: 'dev@example.com', password: PASSWORD });
    expect((await other.get(`${P}/apps`)).status).toBe(200);

    const wrong = await submit(a, `${P}/account`, `${P}/account/password`, {
      current: 'nope',
      password: 'another long password',
      confirm: 'another long password',
    });
    expect(wrong.status).toBe(400);
    expect(await wrong.text()).toContain('The current password is not correct.');
    const ok = await submit(a, `${P}/account`, `${P}/account/password`, {
      current: PASSWORD,
      password: 'another long password',
      confirm: 'another long password',
    });
    expect(ok.status).toBe(303);
    expect((await a.get(`${P}/apps`)).status).toBe(200);
    expect(location(await other.get(`${P}/apps`))).toBe(`${P}/signin`);

    const out = await submit(a, `${P}/apps`, `${P}/signout`, {});
    expect(out.status).toBe(303);
    expect(location(await a.get(`${P}/apps`))).toBe(`${P}/signin`);
  });

  test('guesses at the current password are throttled as sign-ins are: a stolen session is no faster', async () => {
    p = await portal();
    const thief = await signUp(p, 'dev@example.com');
    // Sign-in guesses by someone else do not stop the owner changing the password.
    const outsider = new Browser(p.app, '203.0.113.77');
    const wrong = { email: 'dev@example.com', password: 'not the password' };
    for (let i = 0; i < 5; i++) await submit(outsider, `${P}/signin`, `${P}/signin`, wrong);
    expect((await submit(outsider, `${P}/signin`, `${P}/signin`, wrong)).status).toBe(429);
    const change = (current: string) =>
      submit(thief, `${P}/account`, `${P}/account/password`, {
        current,
        password: 'attacker chosen password',
        confirm: 'attacker chosen password',
      });
    // Sign-in's default: 5 failures per account in the window.
    for (let i = 0; i < 5; i++) expect((await change(`guess-${i}`)).status).toBe(400);
    const throttled = await change(PASSWORD);
    expect(throttled.status).toBe(429);
    expect(await throttled.text()).toContain('Too many sign-in attempts.');
    // The right password, once the window has passed.
    p.ctx.clock.advance(15 * 60_000);
    expect((await change(PASSWORD)).status).toBe(303);
  });

  test('guesses from elsewhere do not lock the developer out of a browser they signed in with before', async () => {
    p = await portal();
    const owner = await signUp(p, 'dev@example.com');
    const signIn = (b: Browser, password: string, email = 'dev@example.com') =>
      submit(b, `${P}/signin`, `${P}/signin`, { email, password });
    // A password sign-in makes the browser known to the account.
    await submit(owner, `${P}/apps`, `${P}/signout`, {});
    expect((await signIn(owner, PASSWORD)).status).toBe(303);
    await submit(owner, `${P}/apps`, `${P}/signout`, {});
    for (let i = 0; i < 5; i++) await signIn(new Browser(p.app, `203.0.113.${i + 1}`), 'not the password');
    expect((await signIn(new Browser(p.app, '203.0.113.50'), PASSWORD)).status).toBe(429);
    expect((await signIn(owner, PASSWORD)).status).toBe(303);
    // Its cookie in another browser whose account it never signed in to is no key there.
    const other = await signUp(p, 'other@example.com');
    await submit(other, `${P}/apps`, `${P}/signout`, {});
    other.cookies.set('__Host-verity_dev_known', owner.cookies.get('__Host-verity_dev_known')!);
    for (let i = 0; i < 5; i++)
      await signIn(new Browser(p.app, `203.0.113.${i + 10}`), 'not the password', 'other@example.com');
    expect((await signIn(other, PASSWORD, 'other@example.com')).status).toBe(429);
  });

  test('a new password makes every browser known before it unknown again', async () => {
    p = await portal();
    const owner = await signUp(p, 'dev@example.com');
    const signIn = (b: Browser, password: string) =>
      submit(b, `${P}/signin`, `${P}/signin`, { email: 'dev@example.com', password });
    // Someone who had the password signs in three times and keeps each cookie.
    const kept: string[] = [];
    const thief = new Browser(p.app, '203.0.113.200');
    for (let i = 0; i < 3; i++) {
      expect((await signIn(thief, PASSWORD)).status).toBe(303);
      kept.push(thief.cookies.get('__Host-verity_dev_known')!);
      await submit(thief, `${P}/apps`, `${P}/signout`, {});
    }
    const changed = await submit(owner, `${P}/account`, `${P}/account/password`, {
      current: PASSWORD,
      password: 'a brand new long password',
      confirm: 'a brand new long password',
    });
    expect(changed.status).toBe(303);
    for (let i = 0; i < 5; i++) await signIn(new Browser(p.app, `198.51.100.${i + 1}`), `guess-${i}`);
    // Past the account's guesses, none of the kept cookies buys more.
    for (const [n, cookie] of kept.entries()) {
      const b = new Browser(p.app, `192.0.2.${n + 1}`);
      b.cookies.set('__Host-verity_dev_known', cookie);
      expect((await signIn(b, `more-${n}`)).status).toBe(429);
    }
  });

  test('pages behind sign-in send an anonymous browser to the sign-in page', async () => {
    p = await portal();
    const b = new Browser(p.app);
    for (const path of ['', '/apps', '/apps/new', '/keys', '/account']) {
      const res = await b.get(`${P}${path}`);
      expect(res.status).toBe(303);
      expect(location(res)).toBe(`${P}/signin`);
    }
  });
});

describe('applications', () => {
  test('registration rules are shown next to their field; the secret is shown once and stored hashed', async () => {
    p = await portal();
    const b = await signUp(p, 'dev@example.com');
    const bad = await createApp_(b, { redirect_uris: 'http://rp.example/cb' });
    expect(bad.res.status).toBe(400);
    expect(bad.html).toContain('href="#redirect_uris"');
    expect(bad.html).toMatch(/id="redirect_uris-error">[^<]*must use https/i);
    expect(bad.html).toContain('http://rp.example/cb'); // the input is kept

    const frag = await createApp_(b, { redirect_uris: 'https://rp.example/cb#x' });
    expect(frag.html).toMatch(/fragments are not allowed/i);
    const noScope = await createApp_(b, { scopes: [] });
    expect(noScope.html).toMatch(/id="scopes-error">At least one scope is required/i);

    const ok = await createApp_(b);
    expect(ok.res.status).toBe(200);
    const secret = /(cs_test_[\w-]+)/.exec(ok.html)![1]!;
    const clientId = /(cid_test_[\w-]+)/.exec(ok.html)![1]!;
    expect(ok.html).toContain('shown only this once');
    const row = p.ctx.db.sql
      .prepare<{ secret_hash: string }>('SELECT secret_hash FROM client_secrets')
      .get()!;
    expect(row.secret_hash).toBe(await sha256Hex(secret));

    const { html } = await page(b, `${P}/apps/${ok.applicationId}`);
    expect(html).not.toContain(secret);
    expect(html).toContain(clientId);
    expect(html).toContain('http://localhost:8080/.well-known/openid-configuration');
    const authUrl = new URL(
      /(http:\/\/localhost:8080\/v1\/oauth\/authorize\?[^<"]+)/.exec(html)![1]!.replaceAll('&amp;', '&'),
    );
    expect(authUrl.searchParams.get('client_id')).toBe(clientId);
    expect(authUrl.searchParams.get('redirect_uri')).toBe('https://rp.example/callback');
    expect(authUrl.searchParams.get('scope')).toBe('openid profile age_over_18');
    expect(authUrl.searchParams.get('code_challenge_method')).toBe('S256');
  });

  test('scopes come from the catalogue with description and sensitivity; sandbox never offers document_number_full', async () => {
    p = await portal();
    const b = await signUp(p, 'dev@example.com');
    const { html } = await page(b, `${P}/apps/new`);
    expect(html).toContain('value="age_over_18"');
    expect(html).toContain('Sensitive');
    expect(html).not.toContain('value="document_number_full"');
    const forced = await createApp_(b, { scopes: ['openid', 'document_number_full'] });
    expect(forced.res.status).toBe(400);
    expect(forced.html).toContain('never granted in sandbox');
  });

  test('edit, rotate with confirmation (old secret revoked), delete with confirmation', async () => {
    p = await portal();
    const b = await signUp(p, 'dev@example.com');
    const { applicationId, html } = await createApp_(b);
    const first = /(cs_test_[\w-]+)/.exec(html)![1]!;
    const base = `${P}/apps/${applicationId}`;

    const edited = await submit(b, `${base}/edit?env=sandbox`, `${base}/edit?env=sandbox`, {
      name: 'Acme Shop 2',
      redirect_uris: 'https://rp.example/callback\nhttp://localhost:3000/cb',
      scopes: ['openid', 'email'],
      document_types: 'passport',
      document_countries: 'DE FR',
    });
    expect(edited.status).toBe(303);
    const shown = await (await b.get(`${base}`)).text();
    expect(shown).toContain('Acme Shop 2');
    expect(shown).toContain('http://localhost:3000/cb');
    expect(shown).toContain('DE FR');

    expect(await (await b.get(`${base}/secret/rotate?env=sandbox`)).text()).toContain(
      'Rotate the client secret?',
    );
    const rotated = await submitPage(
      b,
      `${base}/secret/rotate?env=sandbox`,
      `${base}/secret/rotate?env=sandbox`,
      {},
    );
    const second = /(cs_test_[\w-]+)/.exec(rotated.html)![1]!;
    expect(second).not.toBe(first);
    const active = p.ctx.db.sql
      .prepare<{ secret_hash: string }>('SELECT secret_hash FROM client_secrets WHERE revoked_at IS NULL')
      .all();
    expect(active.map((r) => r.secret_hash)).toEqual([await sha256Hex(second)]);

    expect(await (await b.get(`${base}/delete`)).text()).toContain('Delete this application?');
    const del = await submit(b, `${base}/delete`, `${base}/delete`, {});
    expect(location(del)).toBe(`${P}/apps?deleted=1`);
    expect((await b.get(base)).status).toBe(404);
  });

  test('production review: own justification for document_number_full, rejection reason shown, approval shows production', async () => {
    p = await portal();
    const b = await signUp(p, 'dev@example.com');
    const { applicationId } = await createApp_(b);
    const base = `${P}/apps/${applicationId}`;
    const missing = await submit(b, `${base}/review`, `${base}/review`, {
      justification: 'We check ages for deliveries.',
      scopes: ['openid', 'document_number_full', 'identity_documents'],
    });
    expect(missing.status).toBe(400);
    expect(await missing.text()).toContain('href="#full_number_justification"');

    const filed = await submit(b, `${base}/review`, `${base}/review`, {
      justification: 'We check ages for deliveries.',
      scopes: ['openid', 'age_over_18'],
    });
    expect(filed.status).toBe(303);
    let html = await (await b.get(base)).text();
    expect(html).toContain('waiting for the operator');

    p.ctx.clock.advance(60_000);
    rejectReview(p.ctx.db, p.ctx.clock, applicationId, {
      reason: 'Explain the delivery use case.',
      actor: 'cli',
    });
    html = await (await b.get(base)).text();
    expect(html).toContain('Rejected');
    expect(html).toContain('Explain the delivery use case.');

    p.ctx.clock.advance(60_000);
    await submit(b, `${base}/review`, `${base}/review`, {
      justification: 'Alcohol deliveries need an age check at the door.',
      scopes: ['openid', 'age_over_18'],
    });
    const issued = await approveReview(p.ctx, applicationId, { actor: 'cli' });
    html = await (await b.get(`${base}?env=production`)).text();
    expect(html).toContain(issued.clientId);
    expect(html).toContain('Approved');
  });
});

describe('API keys', () => {
  test('created once, listed with last use, revoked', async () => {
    p = await portal();
    const b = await signUp(p, 'dev@example.com');
    const { res, html } = await submitPage(b, `${P}/keys`, `${P}/keys`, {
      label: 'CI',
      environment: 'sandbox',
    });
    expect(res.status).toBe(200);
    const key = /(dk_test_[\w-]+)/.exec(html)![1]!;
    const keyId = apiKeyIdOn(html)!;
    const list = await (await b.get(`${P}/keys`)).text();
    expect(list).not.toContain(key);
    expect(list).toContain('CI');
    expect(list).toContain('Never');
    // Using the key shows its last use.
    await p.app.request('/v1/developer/applications/app_x/webhooks', {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(await (await b.get(`${P}/keys`)).text()).toContain('2026-06-01 12:00 UTC');
    const revoked = await submit(b, `${P}/keys/${keyId}/revoke`, `${P}/keys/${keyId}/revoke`, {});
    expect(revoked.status).toBe(303);
    const after = await p.app.request('/v1/developer/applications/app_x/webhooks', {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(after.status).toBe(401);
  });
  test('an eleventh active key for an environment is refused on the form', async () => {
    p = await portal();
    const b = await signUp(p, 'dev@example.com');
    for (let i = 0; i < 10; i++)
      expect((await submit(b, `${P}/keys`, `${P}/keys`, { environment: 'sandbox' })).status).toBe(303);
    const res = await submit(b, `${P}/keys`, `${P}/keys`, { label: 'one more', environment: 'sandbox' });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain('Revoke one before creating another.');
    expect(html).not.toContain('dk_test_');
  });
});
