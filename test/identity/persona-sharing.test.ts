import { afterEach, expect, setDefaultTimeout, test } from 'bun:test';
import { createApp } from '../../src/app.ts';
import { purgeIdentityState } from '../../src/identity/jobs.ts';
import { seedPersonas } from '../../src/identity/personas.ts';
import { unix } from '../../src/platform/clock.ts';
import { createTestApp, type TestApp } from '../helpers/apps.ts';
import { type TestContext, testContext } from '../helpers/context.ts';
import { basic, inProcess, tokenRequest } from '../oauth/fixtures.ts';
import { bearer, setDocumentPolicy } from '../userinfo/fixtures.ts';
import { Browser, CALLBACK, connectPersona, csrfOf, location } from './flow-helpers.ts';

/**
 * The sandbox personas are shared by every developer on the server, so Ada's document sharing switch,
 * like her consents, belongs to the browser session that set it: switching her passport off for one
 * developer's application must not hide it from another developer's.
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
    scopes: 'openid identity_documents document_type',
  };
  alices = await createTestApp(ctx, { ...shape, name: 'Alice Shop' });
  bobs = await createTestApp(ctx, { ...shape, name: 'Bob Bank' });
  for (const a of [alices, bobs]) setDocumentPolicy(ctx, a, ['passport', 'id_card'], ['DE', 'FR']);
  app = createApp(ctx);
}

/** Ada connects `client` in browser `b`; returns the access token the application gets. */
async function adaToken(b: Browser, client: TestApp): Promise<string> {
  const { res, verifier } = await connectPersona(b, client.clientId, {
    purpose: 'Check your passport',
    scope: 'openid identity_documents document_type',
  });
  const code = new URL(location(res)).searchParams.get('code')!;
  const exchange = await inProcess(ctx)(
    '/v1/oauth/token',
    tokenRequest(
      { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: verifier },
      { auth: basic(client.clientId, client.clientSecret!), as: 'form' },
    ),
  );
  expect(exchange.status).toBe(200);
  return ((await exchange.json()) as { access_token: string }).access_token;
}

async function sharedTypes(token: string): Promise<string[]> {
  const res = await inProcess(ctx)('/v1/userinfo/identity-documents', bearer(token));
  expect(res.status).toBe(200);
  const body = (await res.json()) as { data: { documents: { documentType: string }[] } };
  return body.data.documents.map((d) => d.documentType);
}

async function accountPage(b: Browser) {
  const html = await (await b.get(ACCOUNT)).text();
  return { html, csrf: csrfOf(html) };
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
