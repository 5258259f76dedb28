import { afterEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { approveReview } from '../../src/apps/production-review.ts';
import { jsonLogger } from '../../src/log.ts';
import { dispatchDue } from '../../src/webhooks/dispatcher.ts';
import {
  apiKeyIdOn,
  Browser,
  createApp_,
  endpointIdOn,
  location,
  P,
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
let receiver: ReturnType<typeof Bun.serve> | undefined;
afterEach(() => {
  receiver?.stop(true);
  receiver = undefined;
  p?.cleanup();
});

/** Alice's application with a webhook endpoint, a delivered event, a production environment and an API key. */
async function alicesWorld() {
  p = await portal({ extra: '[webhooks]\nallow_localhost_in_sandbox = true' });
  receiver = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response('ok') });
  const alice = await signUp(p, 'alice@example.com');
  const { applicationId } = await createApp_(alice);
  const hb = `${P}/apps/${applicationId}/sandbox/webhooks`;
  await submit(alice, `${hb}/new`, hb, {
    url: `http://localhost:${receiver.port}/hook`,
    events: 'webhook.test',
  });
  const endpointId = endpointIdOn(await (await alice.get(hb)).text())!;
  const tested = await submit(alice, hb, `${hb}/${endpointId}/test`, {});
  const eventId = new URL(location(tested), 'http://x').searchParams.get('tested')!;
  await dispatchDue(p.ctx);
  await approveReview(p.ctx, applicationId, { actor: 'cli' });
  const keyPage = await submitPage(alice, `${P}/keys`, `${P}/keys`, {
    label: 'mine',
    environment: 'sandbox',
  });
  const keyId = apiKeyIdOn(keyPage.html)!;
  return { alice, applicationId, endpointId, eventId, keyId };
}

describe('another developer', () => {
  test('gets 404 on every page and action of someone else’s application, endpoint, event and key', async () => {
    const w = await alicesWorld();
    const bob = await signUp(p, 'bob@example.com');
    const app = `${P}/apps/${w.applicationId}`;
    const hb = `${app}/sandbox/webhooks`;
    const ep = `${hb}/${w.endpointId}`;
    const pages = [
      app,
      `${app}?env=production`,
      `${app}/edit?env=sandbox`,
      `${app}/edit?env=production`,
      `${app}/delete`,
      `${app}/secret/rotate?env=sandbox`,
      `${app}/secret?env=sandbox`,
      `${app}/review`,
      hb,
      `${app}/production/webhooks`,
      `${hb}/new`,
      `${hb}/history`,
      `${hb}/history?endpointId=${w.endpointId}`,
      `${ep}/edit`,
      `${ep}/rotate`,
      `${ep}/delete`,
      `${ep}/secret`,
      `${P}/keys/${w.keyId}/revoke`,
      `${P}/keys/${w.keyId}/created`,
    ];
    for (const path of pages) {
      const res = await bob.get(path);
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
      const html = await res.text();
      expect(html).not.toContain('Acme Shop');
      expect(html).not.toContain('cid_test_');
    }
    const actions: [string, Record<string, string | string[]>][] = [
      [
        `${app}/edit?env=sandbox`,
        { name: 'Stolen', redirect_uris: 'https://evil.example/cb', scopes: 'openid' },
      ],
      [`${app}/delete`, {}],
      [`${app}/secret/rotate?env=sandbox`, {}],
      [`${app}/secret/rotate?env=production`, {}],
      [`${app}/review`, { justification: 'mine now', scopes: 'openid' }],
      [hb, { url: 'http://localhost:1/x', events: 'webhook.test' }],
      [`${ep}/edit`, { url: 'http://localhost:1/x', events: 'webhook.test', enabled: '1' }],
      [`${ep}/disable`, {}],
      [`${ep}/enable`, {}],
      [`${ep}/test`, {}],
      [`${ep}/rotate`, { overlap: '0' }],
      [`${ep}/delete`, {}],
      [`${hb}/events/${w.eventId}/redeliver`, { endpointId: w.endpointId }],
      [`${P}/keys/${w.keyId}/revoke`, {}],
    ];
    for (const [action, fields] of actions) {
      // Bob's own valid CSRF token, so only ownership can refuse him.
      const res = await submit(bob, `${P}/apps`, action, fields);
      expect({ action, status: res.status }).toEqual({ action, status: 404 });
    }
    // Nothing changed for Alice.
    const still = await (await w.alice.get(app)).text();
    expect(still).toContain('Acme Shop');
    const secrets = p.ctx.db.sql
      .prepare<{ n: number }>('SELECT count(*) AS n FROM client_secrets WHERE revoked_at IS NULL')
      .get()!;
    expect(secrets.n).toBe(2);
    expect(await (await w.alice.get(hb)).text()).toContain('Enabled');
    expect(p.ctx.db.sql.prepare<{ n: number }>('SELECT count(*) AS n FROM webhook_attempts').get()!.n).toBe(
      1,
    );
    expect(await (await w.alice.get(`${P}/keys`)).text()).not.toContain('Revoked');
    // Bob's list shows none of it.
    expect(await (await bob.get(`${P}/apps`)).text()).toContain('You have no applications yet.');
  });
});

describe('forms', () => {
  test('a POST without the CSRF token, with another session’s token, or from another origin is refused', async () => {
    p = await portal();
    const alice = await signUp(p, 'alice@example.com');
    const { applicationId } = await createApp_(alice);
    const del = `${P}/apps/${applicationId}/delete`;
    const { csrf } = await page(alice, del);
    const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
    const post = (b: Browser, body: string, headers: Record<string, string> = {}) =>
      b.request(del, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: b.origin, ...headers },
        body,
      });

    const none = await post(alice, form({}));
    expect(none.status).toBe(403);
    expect(await none.text()).toContain('This form has expired or was not sent from this site.');
    const bob = await signUp(p, 'bob@example.com');
    const bobs = (await page(bob, `${P}/apps`)).csrf;
    expect((await post(alice, form({ csrf_token: bobs }))).status).toBe(403);
    expect((await post(alice, form({ csrf_token: csrf }), { origin: 'https://evil.example' })).status).toBe(
      403,
    );
    expect(
      (await post(alice, form({ csrf_token: csrf }), { origin: 'null', 'sec-fetch-site': 'cross-site' }))
        .status,
    ).toBe(403);
    // JSON bodies never carry the form token.
    expect(
      (
        await alice.request(del, {
          method: 'POST',
          headers: { 'content-type': 'application/json', origin: alice.origin },
          body: JSON.stringify({ csrf_token: csrf }),
        })
      ).status,
    ).toBe(403);
    // Still there; the real form works.
    expect((await alice.get(`${P}/apps/${applicationId}`)).status).toBe(200);
    expect((await post(alice, form({ csrf_token: csrf }))).status).toBe(303);
  });

  test('a cross-site post without the session cookie gets no new session and leaves the developer signed in', async () => {
    p = await portal();
    const alice = await signUp(p, 'alice@example.com');
    const { applicationId } = await createApp_(alice);
    const mine = alice.cookies.get('__Host-verity_dev')!;
    const sessions = () => p.ctx.db.sql.prepare<{ n: number }>('SELECT count(*) AS n FROM sessions').get()!.n;
    const before = sessions();
    // What a form on another site sends: no SameSite=Lax cookie; newer browsers add Fetch Metadata or Origin.
    const browsers: Record<string, string>[] = [
      { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' },
      { 'sec-fetch-site': 'cross-site' },
      { origin: 'https://evil.example' },
      {},
    ];
    for (const headers of browsers) {
      for (const action of ['/signout', '/signin', `/apps/${applicationId}/delete`, '/keys']) {
        const res = await p.app.request(`${P}${action}`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
          body: 'csrf_token=guess',
        });
        expect({ action, headers, status: res.status }).toEqual({ action, headers, status: 403 });
        expect({ action, headers, cookies: res.headers.getSetCookie() }).toEqual({
          action,
          headers,
          cookies: [],
        });
      }
    }
    expect(sessions()).toBe(before);
    expect(alice.cookies.get('__Host-verity_dev')).toBe(mine);
    expect((await alice.get(`${P}/apps/${applicationId}`)).status).toBe(200);
  });

  test('pages carry a nonce CSP, frame-ancestors none, no-store, and the __Host- session cookie', async () => {
    p = await portal();
    const b = new Browser(p.app);
    const res = await b.get(`${P}/signin`);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toMatch(/script-src 'nonce-[\w-]+'/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('__Host-verity_dev='))!;
    expect(cookie).toMatch(/; Secure/);
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; Path=\//);
    // A page view without a signed-in session stores nothing.
    expect(p.ctx.db.sql.prepare('SELECT kind FROM sessions').all()).toEqual([]);
  });

  test('the password never reaches the log', async () => {
    const lines: string[] = [];
    p = await portal();
    // Every request is logged at debug level into `lines`.
    p.ctx.log = jsonLogger('debug', (l) => lines.push(l));
    const b = await signUp(p, 'alice@example.com');
    await submit(b, `${P}/signin`, `${P}/signin`, {
      email: 'alice@example.com',
      password: 'wrong password 123',
    });
    const all = lines.join('\n');
    expect(lines.length).toBeGreaterThan(3);
    expect(all).not.toContain('wrong password 123');
    expect(all).not.toContain('correct horse battery staple');
    expect(all).not.toContain(b.cookies.get('__Host-verity_dev') ?? 'no-cookie');
  });
});
