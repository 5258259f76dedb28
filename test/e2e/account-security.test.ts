import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createHash } from 'node:crypto';
import { grantConsent } from '../../src/consent/grant.ts';
import { createTestApp, type TestApp } from '../helpers/apps.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/** The account page's forms refuse what a browser of another site, or another person, could send. */

let server: TestServer;
let app: TestApp;
let account: string;
beforeAll(async () => {
  server = await startTestServer();
  account = `${server.ctx.config.server.identity_url}/account`;
  app = await createTestApp(server.ctx, {
    type: 'confidential',
    redirectUris: ['https://app.example/callback'],
    scopes: 'openid email',
    name: 'Acme',
  });
});
afterAll(() => server.stop());

/** A browser in miniature: one cookie, the CSRF token of the last page. */
function browser() {
  let cookie = '';
  let csrf = '';
  const remember = (res: Response) => {
    const set = res.headers.get('set-cookie');
    if (set) cookie = set.split(';')[0]!;
  };
  return {
    /** What the server stores of this browser's session: SHA-256 of the cookie value. */
    sessionIdHash: () =>
      createHash('sha256')
        .update(cookie.slice(cookie.indexOf('=') + 1))
        .digest('hex'),
    async get(path = '') {
      const res = await fetch(`${account}${path}`, { headers: { Cookie: cookie }, redirect: 'manual' });
      remember(res);
      const html = await res.text();
      csrf = /name="csrf_token" value="([^"]+)"/.exec(html)?.[1] ?? csrf;
      return { res, html };
    },
    async post(
      path: string,
      fields: Record<string, string> = {},
      opts: { csrf?: boolean; origin?: string } = {},
    ) {
      const body = new URLSearchParams(fields);
      if (opts.csrf !== false) body.set('csrf_token', csrf);
      const headers: Record<string, string> = {
        Cookie: cookie,
        'Content-Type': 'application/x-www-form-urlencoded',
      };
      if (opts.origin) headers.Origin = opts.origin;
      const res = await fetch(`${account}${path}`, { method: 'POST', headers, body, redirect: 'manual' });
      remember(res);
      return res;
    },
  };
}

/** A persona's consent, held by the browser session that gave it (none: given in no live session). */
const grant = (personId: string, purpose: string, sessionIdHash: string | null = null) =>
  grantConsent(server.ctx, {
    applicationId: app.applicationId,
    environment: 'sandbox',
    environmentId: app.environmentId,
    personId,
    sessionIdHash,
    purpose,
    scopes: ['email'],
  });

const status = (id: string) =>
  (server.ctx.db.sql.prepare('SELECT status FROM consents WHERE id = ?').get(id) as { status: string })
    .status;

test('signed out: the page is the sign-in form and a change posts nothing but a redirect to it', async () => {
  const b = browser();
  const { res, html } = await b.get();
  expect(res.status).toBe(200);
  expect(html).toContain('Sign in to your account');
  expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  const c = await grant('psn_sandbox_ada', 'Signed out');
  const r = await b.post(`/consents/${c.id}/revoke`);
  expect(r.status).toBe(303);
  expect(status(c.id)).toBe('active');
});

test("CSRF: no token, or another site's Origin, is refused and nothing changes", async () => {
  const b = browser();
  await b.get();
  expect((await b.post('/signin/persona', { persona: 'ada' })).status).toBe(303);
  const c = await grant('psn_sandbox_ada', 'CSRF', b.sessionIdHash());
  await b.get();
  expect((await b.post(`/consents/${c.id}/revoke`, {}, { csrf: false })).status).toBe(403);
  expect((await b.post(`/consents/${c.id}/revoke`, {}, { origin: 'https://evil.example' })).status).toBe(403);
  expect(
    (await b.post('/documents/doc_sandbox_ada_passport_de/sharing', { share: 'off' }, { csrf: false }))
      .status,
  ).toBe(403);
  expect(status(c.id)).toBe('active');
  expect((await b.post(`/consents/${c.id}/revoke`)).status).toBe(303);
  expect(status(c.id)).toBe('revoked');
});

test("another person's consent, application or document is not found, and stays as it was", async () => {
  const b = browser();
  await b.get();
  await b.post('/signin/persona', { persona: 'ada' });
  await b.get();
  const bens = await grant('psn_sandbox_ben', 'Ben only');
  expect((await b.post(`/consents/${bens.id}/revoke`)).status).toBe(404);
  expect(status(bens.id)).toBe('active');
  expect((await b.post('/documents/doc_sandbox_ben_id_card_fr/sharing', { share: 'off' })).status).toBe(404);
  const shared = server.ctx.db.sql
    .prepare("SELECT share_enabled FROM identity_documents WHERE id = 'doc_sandbox_ben_id_card_fr'")
    .get() as { share_enabled: number };
  expect(shared.share_enabled).toBe(1);
  // Ada has no consent with this application left: disconnecting it finds nothing.
  server.ctx.db.sql
    .prepare("UPDATE consents SET status = 'revoked' WHERE person_id = 'psn_sandbox_ada'")
    .run();
  expect((await b.post(`/applications/${app.applicationId}/disconnect`)).status).toBe(404);
  expect(status(bens.id)).toBe('active');
});

test('persona sign-in is refused when sandbox sign-in is off', async () => {
  const off = await startTestServer({ extra: '[identity]\nsandbox = false' });
  try {
    const page = await fetch(`${off.ctx.config.server.identity_url}/account`);
    const cookie = page.headers.get('set-cookie')!.split(';')[0]!;
    const html = await page.text();
    expect(html).not.toContain('Ada Sandbox');
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(html)![1]!;
    const res = await fetch(`${off.ctx.config.server.identity_url}/account/signin/persona`, {
      method: 'POST',
      headers: { Cookie: cookie, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ persona: 'ada', csrf_token: csrf }),
      redirect: 'manual',
    });
    expect(res.status).toBe(403);
  } finally {
    await off.stop();
  }
});
