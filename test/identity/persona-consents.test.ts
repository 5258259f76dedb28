import { afterEach, expect, setDefaultTimeout, test } from 'bun:test';
import { createApp } from '../../src/app.ts';
import { grantConsent } from '../../src/consent/grant.ts';
import { expireConsents, sandboxConsentsOf } from '../../src/consent/lifecycle.ts';
import { purgeIdentityState } from '../../src/identity/jobs.ts';
import { seedPersonas } from '../../src/identity/personas.ts';
import { importPersons } from '../../src/persons/import.ts';
import { unix } from '../../src/platform/clock.ts';
import { createTestApp, type TestApp } from '../helpers/apps.ts';
import { type TestContext, testContext } from '../helpers/context.ts';
import { inProcess } from '../oauth/fixtures.ts';
import { jsonl, record } from '../persons/fixtures.ts';
import { bearer, setDocumentPolicy } from '../userinfo/fixtures.ts';
import { Browser, CALLBACK, connectPersona, csrfOf, exchangeCode, location } from './flow-helpers.ts';

/**
 * The sandbox personas are shared by every developer on the server: signing in as Ada on the account
 * page must not list or end the consents Ada gave other developers' applications from other browsers,
 * nor switch off her documents for them: her sharing switches, like her consents, belong to the
 * browser session that set them.
 */

setDefaultTimeout(30_000);

const ACCOUNT = '/identity/account';
const ADA_PASSPORT = 'doc_sandbox_ada_passport_de';
const BEN_ID_CARD = 'doc_sandbox_ben_id_card_fr';

let ctx: TestContext;
let app: ReturnType<typeof createApp>;
let alices: TestApp;
let bobs: TestApp;
afterEach(() => ctx?.cleanup());

async function setup() {
  ctx = await testContext({ extra: '[rate_limits.oauth]\nrequests = 1000' });
  const shape = {
    type: 'confidential' as const,
    redirectUris: [CALLBACK],
    scopes: 'openid email identity_documents document_type',
    subscribed: true,
  };
  alices = await createTestApp(ctx, { ...shape, name: 'Alice Shop' });
  bobs = await createTestApp(ctx, { ...shape, name: 'Bob Bank' });
  for (const a of [alices, bobs]) setDocumentPolicy(ctx, a, ['passport', 'id_card'], ['DE', 'FR']);
  app = createApp(ctx);
}

/** Ada's consent given to `client` in browser `b`, through the hosted flow; returns its id. */
async function adaConsents(b: Browser, client: TestApp, purpose: string): Promise<string> {
  const { res } = await connectPersona(b, client.clientId, { purpose });
  expect(location(res)).toStartWith(CALLBACK);
  return ctx.db.sql
    .prepare<{ id: string }>(
      "SELECT id FROM consents WHERE application_id = ? AND purpose = ? AND status = 'active'",
    )
    .get(client.applicationId, purpose)!.id;
}

async function accountPage(b: Browser) {
  const res = await b.get(ACCOUNT);
  const html = await res.text();
  return { html, csrf: csrfOf(html) };
}

const statusOf = (id: string) =>
  ctx.db.sql.prepare<{ status: string }>('SELECT status FROM consents WHERE id = ?').get(id)!.status;
const revokedEvents = () =>
  ctx.db.sql
    .prepare<{ n: number }>("SELECT count(*) AS n FROM webhook_events WHERE type = 'consent.revoked'")
    .get()!.n;

test("a persona's consent ends with the session holding it, not a year later", async () => {
  await setup();
  // Anonymous visitors, each in a browser of their own, run the public sandbox flow.
  const ids = [];
  for (const ip of ['192.0.2.1', '192.0.2.2', '192.0.2.3'])
    ids.push(await adaConsents(new Browser(app, ip), alices, 'Sign in'));
  expect(sandboxConsentsOf(ctx, alices.applicationId)).toHaveLength(3);

  // Past the sessions' absolute deadline (12 hours): expired, as the application hears.
  ctx.clock.advance(12 * 3600_000);
  await expireConsents(ctx);
  expect(sandboxConsentsOf(ctx, alices.applicationId)).toEqual([]);
  expect(ids.map(statusOf)).toEqual(['expired', 'expired', 'expired']);
  expect(revokedEvents()).toBe(3);

  // A session gone by the time the consent is stored (rotated meanwhile): its longest lifetime still.
  const orphan = await grantConsent(ctx, {
    applicationId: alices.applicationId,
    environment: 'sandbox',
    environmentId: alices.environmentId,
    personId: 'psn_sandbox_ada',
    sessionIdHash: 'no-such-session',
    purpose: 'Sign in',
    scopes: ['email'],
  });
  expect(orphan.expiresAt - unix(ctx.clock)).toBe(12 * 3600);
});

test("Ada's account page lists only the consents made from this browser session", async () => {
  await setup();
  const alice = new Browser(app, '198.51.100.1');
  const bob = new Browser(app, '198.51.100.2');
  await adaConsents(alice, alices, 'Alice checks your age');
  await adaConsents(bob, bobs, 'Bob opens your account');

  const a = await accountPage(alice);
  expect(a.html).toContain('Signed in as Ada Sandbox');
  expect(a.html).toContain('Alice Shop');
  expect(a.html).toContain('Alice checks your age');
  expect(a.html).not.toContain('Bob Bank');
  expect(a.html).not.toContain('Bob opens your account');

  const b = await accountPage(bob);
  expect(b.html).toContain('Bob opens your account');
  expect(b.html).not.toContain('Alice Shop');
});

test("a crafted revoke or disconnect of another session's consent is refused and changes nothing", async () => {
  await setup();
  const alice = new Browser(app, '198.51.100.1');
  const bob = new Browser(app, '198.51.100.2');
  const victim = await adaConsents(alice, alices, 'Alice checks your age');
  await adaConsents(bob, bobs, 'Bob opens your account');

  const { csrf } = await accountPage(bob);
  const revoke = await bob.post(`${ACCOUNT}/consents/${victim}/revoke`, { csrf_token: csrf });
  expect(revoke.status).toBe(404);
  const disconnect = await bob.post(`${ACCOUNT}/applications/${alices.applicationId}/disconnect`, {
    csrf_token: csrf,
  });
  expect(disconnect.status).toBe(404);
  expect(statusOf(victim)).toBe('active');
  expect(revokedEvents()).toBe(0);

  // The session that gave it can end it.
  const own = await accountPage(alice);
  const res = await alice.post(`${ACCOUNT}/consents/${victim}/revoke`, { csrf_token: own.csrf });
  expect(res.status).toBe(303);
  expect(statusOf(victim)).toBe('revoked');
});

test("another browser's consent is not reused: Ada is asked again there, and each sees its own", async () => {
  await setup();
  const alice = new Browser(app, '198.51.100.1');
  const mallory = new Browser(app, '198.51.100.3');
  await adaConsents(alice, alices, 'Alice checks your age');
  const again = await connectPersona(mallory, alices.clientId, { purpose: 'Alice checks your age' });
  expect(again.askedConsent).toBe(true);
  // In the session that gave it, the consent is reused without asking.
  const same = await connectPersona(alice, alices.clientId, { purpose: 'Alice checks your age' });
  expect(same.askedConsent).toBe(false);
  expect(location(same.res)).toStartWith(CALLBACK);
});

test('the same browser: signing in again keeps its consents; after signing out they are no longer shown', async () => {
  await setup();
  const alice = new Browser(app, '198.51.100.1');
  await adaConsents(alice, alices, 'Alice checks your age');
  const before = alice.cookies.get('__Host-verity_session');

  // A new persona sign-in rotates the session id; the consents move with it.
  let page = await accountPage(alice);
  await alice.post(`${ACCOUNT}/signin/persona`, { csrf_token: page.csrf, persona: 'ada' });
  expect(alice.cookies.get('__Host-verity_session')).not.toBe(before);
  page = await accountPage(alice);
  expect(page.html).toContain('Alice checks your age');

  // Signing out ends the session: a new one starts with no persona consents.
  await alice.post(`${ACCOUNT}/signout`, { csrf_token: page.csrf });
  page = await accountPage(alice);
  await alice.post(`${ACCOUNT}/signin/persona`, { csrf_token: page.csrf, persona: 'ada' });
  page = await accountPage(alice);
  expect(page.html).toContain('Signed in as Ada Sandbox');
  expect(page.html).not.toContain('Alice checks your age');
  const next = await connectPersona(alice, alices.clientId, { purpose: 'Alice checks your age' });
  expect(next.askedConsent).toBe(true);
});

test('a production person sees all their consents from any browser session', async () => {
  await setup();
  const live = await createTestApp(ctx, {
    type: 'confidential',
    redirectUris: [CALLBACK],
    scopes: 'openid email',
    environment: 'production',
    name: 'Live Shop',
  });
  await importPersons(ctx, jsonl(record({ password: 'Maria-Passw0rd-Secret' })));
  const maria = ctx.db.sql
    .prepare<{ id: string }>("SELECT id FROM persons WHERE environment = 'production'")
    .get()!.id;
  await grantConsent(ctx, {
    applicationId: live.applicationId,
    environment: 'production',
    environmentId: live.environmentId,
    personId: maria,
    sessionIdHash: null,
    purpose: 'Deliver your order',
    scopes: ['email'],
  });
  for (const ip of ['198.51.100.4', '198.51.100.5']) {
    const b = new Browser(app, ip);
    const { csrf } = await accountPage(b);
    await b.post(`${ACCOUNT}/signin`, {
      csrf_token: csrf,
      email: 'maria@example.com',
      password: 'Maria-Passw0rd-Secret',
    });
    expect((await accountPage(b)).html).toContain('Deliver your order');
  }
});

/** Ada connects `client` in browser `b`; returns the access token the application gets. */
async function adaToken(b: Browser, client: TestApp): Promise<string> {
  const { res, verifier } = await connectPersona(b, client.clientId, {
    purpose: 'Check your passport',
    scope: 'openid identity_documents document_type',
  });
  return (await exchangeCode(app, client, new URL(location(res)).searchParams.get('code')!, verifier))
    .access_token;
}

async function sharedTypes(token: string): Promise<string[]> {
  const res = await inProcess(ctx)('/v1/userinfo/identity-documents', bearer(token));
  expect(res.status).toBe(200);
  const body = (await res.json()) as { data: { documents: { documentType: string }[] } };
  return body.data.documents.map((d) => d.documentType);
}

const switchOf = (html: string) =>
  /role="switch"[^>]*aria-checked="(true|false)"/.exec(
    html.slice(html.indexOf('Share German passport') - 400),
  )?.[1];

const switchPassport = async (b: Browser, share: 'on' | 'off') =>
  b.post(`${ACCOUNT}/documents/${ADA_PASSPORT}/sharing`, { csrf_token: (await accountPage(b)).csrf, share });

const storedFlag = () =>
  ctx.db.sql
    .prepare<{ share_enabled: number }>('SELECT share_enabled FROM identity_documents WHERE id = ?')
    .get(ADA_PASSPORT)!.share_enabled;

test("Ada's sharing switch is her browser session's own: another developer's application still sees the passport", async () => {
  await setup();
  const alice = new Browser(app, '198.51.100.1');
  const bob = new Browser(app, '198.51.100.2');
  const aliceToken = await adaToken(alice, alices);
  const bobToken = await adaToken(bob, bobs);
  expect(await sharedTypes(aliceToken)).toEqual(['passport']);

  expect((await switchPassport(alice, 'off')).status).toBe(303);
  expect(await sharedTypes(aliceToken)).toEqual([]);
  expect(await sharedTypes(bobToken)).toEqual(['passport']);
  expect(switchOf((await accountPage(alice)).html)).toBe('false');
  expect(switchOf((await accountPage(bob)).html)).toBe('true');
  expect(storedFlag()).toBe(1);

  // Signing in again rotates the session id; the switch moves with it, as the consents do.
  await alice.post(`${ACCOUNT}/signin/persona`, {
    csrf_token: (await accountPage(alice)).csrf,
    persona: 'ada',
  });
  expect(switchOf((await accountPage(alice)).html)).toBe('false');
  expect(await sharedTypes(aliceToken)).toEqual([]);

  expect((await switchPassport(alice, 'on')).status).toBe(303);
  expect(await sharedTypes(aliceToken)).toEqual(['passport']);
});

test("a switch for another persona's document is refused and changes nothing", async () => {
  await setup();
  const bob = new Browser(app, '198.51.100.2');
  await adaToken(bob, bobs);
  const { csrf } = await accountPage(bob);
  const res = await bob.post(`${ACCOUNT}/documents/${BEN_ID_CARD}/sharing`, {
    csrf_token: csrf,
    share: 'off',
  });
  expect(res.status).toBe(404);
  expect(ctx.db.sql.prepare('SELECT * FROM persona_document_sharing').all()).toEqual([]);
});

test('a signed-out session keeps its switches while its consent is in force, then they are removed', async () => {
  await setup();
  const alice = new Browser(app, '198.51.100.1');
  const aliceToken = await adaToken(alice, alices);
  await switchPassport(alice, 'off');
  await alice.post(`${ACCOUNT}/signout`, { csrf_token: (await accountPage(alice)).csrf });

  // The application's token still reads through the consent the ended session gave: still not shared.
  expect(purgeIdentityState(ctx, unix(ctx.clock)).sharing).toBe(0);
  expect(await sharedTypes(aliceToken)).toEqual([]);

  ctx.db.sql.prepare("UPDATE consents SET status = 'revoked'").run();
  expect(purgeIdentityState(ctx, unix(ctx.clock)).sharing).toBe(1);
});

test("a start resets a persona's stored switch that an earlier version let anyone turn off", async () => {
  await setup();
  ctx.db.sql.prepare('UPDATE identity_documents SET share_enabled = 0 WHERE id = ?').run(ADA_PASSPORT);
  seedPersonas(ctx.db);
  expect(storedFlag()).toBe(1);
});
