import { afterEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findPendingReview } from '../../src/apps/application.store.ts';
import { approveReview, rejectReview } from '../../src/apps/production-review.ts';
import {
  productionSecretRevealableUntil,
  pruneProductionSecrets,
  revealProductionSecret,
} from '../../src/apps/production-secret.ts';
import { updateApplication } from '../../src/apps/registration.ts';
import { sha256Hex } from '../../src/crypto/tokens.ts';
import { createPersonStore } from '../../src/persons/person.store.ts';
import { cli } from '../helpers/cli.ts';
import { testToml } from '../helpers/context.ts';
import { createTestPerson, inProcess, REDIRECT } from '../oauth/fixtures.ts';
import { bearer, issueToken } from '../userinfo/fixtures.ts';
import {
  type Browser,
  createApp_,
  location,
  P,
  type Portal,
  page,
  portal,
  signUp,
  submit,
  submitPage,
} from './portal-helpers.ts';

// Each account costs an argon2id hash; a loaded machine needs the margin.
setDefaultTimeout(30_000);

let p: Portal;
afterEach(() => p?.cleanup());

const WIDER = [
  'openid',
  'profile',
  'legal_name',
  'date_of_birth',
  'nationality',
  'emails',
  'phones',
  'identity_documents',
];

interface Live {
  b: Browser;
  applicationId: string;
  base: string;
  clientId: string;
  clientSecret: string;
  environmentId: string;
}

/** A developer's application approved for production with `openid profile`. */
async function approvedApp(): Promise<Live> {
  p = await portal();
  const b = await signUp(p, 'dev@example.com');
  const { applicationId } = await createApp_(b, { redirect_uris: REDIRECT, scopes: ['openid', 'profile'] });
  const base = `${P}/apps/${applicationId}`;
  const filed = await submit(b, `${base}/review`, `${base}/review`, {
    justification: 'Sign-in for our shop.',
    scopes: ['openid', 'profile'],
  });
  expect(filed.status).toBe(303);
  const issued = await approveReview(p.ctx, applicationId, { actor: 'cli' });
  const environmentId = p.ctx.db.sql
    .prepare<{ id: string }>('SELECT id FROM application_environments WHERE client_id = ?')
    .get(issued.clientId)!.id;
  return {
    b,
    applicationId,
    base,
    clientId: issued.clientId,
    clientSecret: issued.clientSecret!,
    environmentId,
  };
}

/** The production edit form as a developer submits it. */
function editProduction(
  live: Live,
  fields: { scopes?: string[]; redirect_uris?: string; [k: string]: unknown },
) {
  const edit = `${live.base}/edit?env=production`;
  return submit(live.b, edit, edit, {
    name: 'Acme Shop',
    redirect_uris: REDIRECT,
    scopes: ['openid', 'profile'],
    document_types: ['passport', 'id_card'],
    document_countries: 'all',
    ...(fields as Record<string, string | string[]>),
  });
}

async function authorize(live: Live, scopes: string[], redirectUri = REDIRECT) {
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: live.clientId,
    redirect_uri: redirectUri,
    scope: scopes.join(' '),
    state: 'state-123',
    nonce: 'nonce-123',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
  });
  return inProcess(p.ctx)(`/v1/oauth/authorize?${q}`);
}

const productionOf = (live: Live) => ({
  scopes: JSON.parse(
    p.ctx.db.sql
      .prepare<{ scopes: string }>('SELECT scopes FROM application_environments WHERE id = ?')
      .get(live.environmentId)!.scopes,
  ) as string[],
  redirectUris: p.ctx.db.sql
    .prepare<{ uri: string }>('SELECT uri FROM redirect_uris WHERE environment_id = ? ORDER BY id')
    .all(live.environmentId)
    .map((r) => r.uri),
});

const client = (live: Live) => ({
  applicationId: live.applicationId,
  environmentId: live.environmentId,
  clientId: live.clientId,
  clientSecret: live.clientSecret,
});

describe('production changes by a developer', () => {
  test('reproduction: widening production scopes in the portal releases nothing until an operator approves', async () => {
    const live = await approvedApp();
    const res = await editProduction(live, { scopes: WIDER });
    expect(res.status).toBe(303);
    expect(location(res)).toContain('pending=1');

    // Production still serves exactly the approved set.
    expect(productionOf(live).scopes).toEqual(['openid', 'profile']);
    const refused = await authorize(live, ['openid', 'legal_name', 'date_of_birth']);
    const callback = new URL(location(refused));
    expect(`${callback.origin}${callback.pathname}`).toBe(REDIRECT);
    expect(callback.searchParams.get('error')).toBe('invalid_scope');

    // A production flow for the approved scopes gets no new claim from UserInfo.
    const personId = createTestPerson(p.ctx, 'production');
    createPersonStore(p.ctx.db).update(personId, {
      birthdate: '1990-04-01',
      legalGivenName: 'Grace',
      legalFamilyName: 'Hopper',
    });
    await expect(
      issueToken(p.ctx, client(live), { scopes: ['openid', 'date_of_birth'], personId }),
    ).rejects.toThrow();
    const token = await issueToken(p.ctx, client(live), { scopes: ['openid', 'profile'], personId });
    const before = (await (
      await inProcess(p.ctx)('/v1/userinfo', bearer(token.accessToken))
    ).json()) as Record<string, unknown>;
    expect(before.name).toBe('Test Person');
    expect(before).not.toHaveProperty('birthdate');
    expect(before).not.toHaveProperty('legal_name');

    // The portal shows the pending change.
    const html = (await page(live.b, `${live.base}?env=production`)).html;
    expect(html).toContain('Pending');
    expect(html).toContain('+legal_name');
    expect(html).toContain('+date_of_birth');

    await approveReview(p.ctx, live.applicationId, { actor: 'cli' });
    expect(productionOf(live).scopes.sort()).toEqual([...WIDER].sort());
    const allowed = await authorize(live, ['openid', 'legal_name', 'date_of_birth']);
    expect(new URL(location(allowed), 'http://x').searchParams.get('error')).toBeNull();
    const wide = await issueToken(p.ctx, client(live), {
      scopes: ['openid', 'date_of_birth', 'legal_name'],
      personId,
    });
    const after = (await (await inProcess(p.ctx)('/v1/userinfo', bearer(wide.accessToken))).json()) as Record<
      string,
      unknown
    >;
    expect(after.birthdate).toBe('1990-04-01');
    expect(after.legal_name).toBe('Grace Hopper');
  });

  test('narrowing applies at once; narrowing and widening in one edit split', async () => {
    const live = await approvedApp();
    const narrowed = await editProduction(live, { scopes: ['openid'] });
    expect(location(narrowed)).toContain('updated=1');
    expect(productionOf(live).scopes).toEqual(['openid']);
    expect(
      (await cli('apps', 'review', 'list', '--status', 'pending', '--config', config(), '--json')).json
        .reviews,
    ).toEqual([]);

    // Drop openid, add email: the removal applies now, the addition waits.
    await editProduction(live, { scopes: ['openid', 'email'] });
    expect(productionOf(live).scopes).toEqual(['openid']);
    const refused = await authorize(live, ['openid', 'email']);
    expect(new URL(location(refused)).searchParams.get('error')).toBe('invalid_scope');
    // A reorder of the redirect URIs changes nothing.
    expect(productionOf(live).redirectUris).toEqual([REDIRECT]);
  });

  test('a scope removed beside an addition stays removed when the addition is approved', async () => {
    const live = await approvedApp();
    // The developer stops asking for the profile and, in the same edit, adds a second callback.
    const extra = 'https://app.example/other';
    await editProduction(live, { scopes: ['openid'], redirect_uris: `${REDIRECT}\n${extra}` });
    expect(productionOf(live).scopes).toEqual(['openid']);
    await approveReview(p.ctx, live.applicationId, { actor: 'cli' });
    expect(productionOf(live)).toMatchObject({ scopes: ['openid'], redirectUris: [REDIRECT, extra] });
  });

  test("an operator's edit of production withdraws the developer's pending review", async () => {
    const live = await approvedApp();
    const extra = 'https://app.example/other';
    const filed = await editProduction(live, { redirect_uris: `${REDIRECT}\n${extra}` });
    expect(location(filed)).toContain('pending=1');
    const reviewId = findPendingReview(p.ctx.db, live.applicationId)!.id;
    // Meanwhile an operator takes the profile from production: the review, filed against production
    // as it was, would give it back.
    updateApplication(p.ctx.db, p.ctx.clock, live.applicationId, {
      environment: 'production',
      scopes: ['openid'],
      actor: 'cli',
    });
    const reviews = (await cli('apps', 'review', 'list', '--config', config(), '--json')).json.reviews;
    expect(reviews.map((r: { status: string }) => r.status).sort()).toEqual(['approved', 'withdrawn']);
    await expect(approveReview(p.ctx, live.applicationId, { actor: 'cli', reviewId })).rejects.toThrow();
    expect(productionOf(live)).toMatchObject({ scopes: ['openid'], redirectUris: [REDIRECT] });
  });

  test('a redirect URI added is not accepted until approval', async () => {
    const live = await approvedApp();
    const extra = 'https://app.example/other';
    await editProduction(live, { redirect_uris: `${REDIRECT}\n${extra}` });
    expect(productionOf(live).redirectUris).toEqual([REDIRECT]);
    const refused = await authorize(live, ['openid'], extra);
    expect(refused.status).toBe(400);
    expect(location(refused)).toBe('');
    await approveReview(p.ctx, live.applicationId, { actor: 'cli' });
    const allowed = await authorize(live, ['openid'], extra);
    expect(allowed.status).toBe(303);
    expect(location(allowed)).not.toContain(extra);
  });

  test('a post-logout redirect URI added in the portal waits for review; a removal applies at once', async () => {
    const live = await approvedApp();
    const postLogout = () =>
      p.ctx.db.sql
        .prepare<{ uri: string }>(
          'SELECT uri FROM post_logout_redirect_uris WHERE environment_id = ? ORDER BY id',
        )
        .all(live.environmentId)
        .map((r) => r.uri);
    const first = 'https://app.example/signed-out';
    const second = 'https://app.example/bye';
    await editProduction(live, { post_logout_redirect_uris: first });
    expect(postLogout()).toEqual([]);
    const r = await cli('apps', 'review', 'list', '--status', 'pending', '--config', config(), '--json');
    expect(r.json.reviews[0].changes.postLogoutRedirectUris).toEqual({ added: [first], removed: [] });
    expect((await page(live.b, `${live.base}?env=production`)).html).toContain(
      'Post-logout redirect URIs asked for',
    );
    await approveReview(p.ctx, live.applicationId, { actor: 'cli' });
    expect(postLogout()).toEqual([first]);

    await editProduction(live, { post_logout_redirect_uris: `${first}\n${second}` });
    expect(postLogout()).toEqual([first]);
    // The latest edit states everything wanted: dropping the first applies now, the second still waits.
    await editProduction(live, { post_logout_redirect_uris: second });
    expect(postLogout()).toEqual([]);
    await approveReview(p.ctx, live.applicationId, { actor: 'cli' });
    expect(postLogout()).toEqual([second]);

    const bad = await editProduction(live, { post_logout_redirect_uris: 'http://app.example/out' });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('href="#post_logout_redirect_uris"');
  });

  test('reject discards the change; a later edit replaces the pending one with a new review, and one that adds nothing withdraws it', async () => {
    const live = await approvedApp();
    await editProduction(live, { scopes: ['openid', 'profile', 'email'] });
    const first = (await cli('apps', 'review', 'list', '--status', 'pending', '--config', config(), '--json'))
      .json.reviews[0];
    // The edit form shows what is pending, so the developer edits that further.
    expect((await page(live.b, `${live.base}/edit?env=production`)).html).toMatch(/value="email"\s+checked/);
    await editProduction(live, { scopes: ['openid', 'profile', 'phone'] });
    const pending = (
      await cli('apps', 'review', 'list', '--status', 'pending', '--config', config(), '--json')
    ).json.reviews;
    expect(pending).toHaveLength(1);
    // A review id always names what the operator read: the replaced one is withdrawn, not rewritten.
    expect(pending[0].reviewId).not.toBe(first.reviewId);
    expect(pending[0].changes.scopes).toEqual({ added: ['phone'], removed: [] });
    expect(
      approveReview(p.ctx, live.applicationId, { actor: 'cli', reviewId: first.reviewId }),
    ).rejects.toThrow(`review ${first.reviewId} is not the pending production review`);
    expect(productionOf(live).scopes).toEqual(['openid', 'profile']);

    rejectReview(p.ctx.db, p.ctx.clock, live.applicationId, { reason: 'No phone use case.', actor: 'cli' });
    expect(productionOf(live).scopes).toEqual(['openid', 'profile']);
    expect((await page(live.b, `${live.base}?env=production`)).html).toContain('No phone use case.');

    await editProduction(live, { scopes: ['openid', 'profile', 'email'] });
    await editProduction(live, { scopes: ['openid', 'profile'] });
    const withdrawn = (
      await cli('apps', 'review', 'list', '--status', 'withdrawn', '--config', config(), '--json')
    ).json.reviews;
    expect(withdrawn.map((r: { reviewId: string }) => r.reviewId)).toContain(first.reviewId);
    expect(withdrawn).toHaveLength(2);
    await expect(approveReview(p.ctx, live.applicationId, { actor: 'cli' })).resolves.toBeDefined();
  });

  test('document_number_full added in an edit needs its justification and a review', async () => {
    const live = await approvedApp();
    const missing = await editProduction(live, { scopes: ['openid', 'profile', 'document_number_full'] });
    expect(missing.status).toBe(400);
    expect(await missing.text()).toContain('href="#full_number_justification"');
    await editProduction(live, {
      scopes: ['openid', 'profile', 'document_number_full'],
      full_number_justification: 'Regulated account opening.',
    });
    expect(productionOf(live).scopes).toEqual(['openid', 'profile']);
    await approveReview(p.ctx, live.applicationId, { actor: 'cli' });
    expect(productionOf(live).scopes).toContain('document_number_full');
    const flag = () =>
      p.ctx.db.sql.prepare<{ f: number }>('SELECT full_number_approved AS f FROM applications').get()!.f;
    expect(flag()).toBe(1);
    // Dropping the scope withdraws the approval: adding it back needs a review again.
    await editProduction(live, { scopes: ['openid', 'profile'] });
    expect(flag()).toBe(0);
  });

  test('review list --json shows the diff of scopes and redirect URIs', async () => {
    const live = await approvedApp();
    await editProduction(live, {
      scopes: ['openid', 'email'],
      redirect_uris: `${REDIRECT}\nhttps://app.example/new`,
    });
    const r = await cli('apps', 'review', 'list', '--status', 'pending', '--config', config(), '--json');
    expect(r.code).toBe(0);
    const [review] = r.json.reviews;
    expect(review.changes.scopes).toEqual({ added: ['email'], removed: [] });
    expect(review.changes.redirectUris).toEqual({ added: ['https://app.example/new'], removed: [] });
    expect(review.changes.documentTypes).toEqual({ added: [], removed: [] });
    const human = await cli('apps', 'review', 'list', '--config', config());
    expect(human.stdout).toContain('scopes added:   email');
    expect(human.stdout).toContain('redirectUris added:   https://app.example/new');
  });
});

describe('operators', () => {
  test('apps update --env production applies at once and is audited', async () => {
    const live = await approvedApp();
    const r = await cli(
      'apps',
      'update',
      live.applicationId,
      '--env',
      'production',
      '--scopes',
      'openid profile email',
      '--add-redirect-uri',
      'https://app.example/ops',
      '--config',
      config(),
      '--json',
    );
    expect(r.code).toBe(0);
    expect(productionOf(live)).toEqual({
      scopes: ['openid', 'profile', 'email'],
      redirectUris: [REDIRECT, 'https://app.example/ops'],
    });
    const audit = p.ctx.db.sql
      .prepare<{ actor: string; details: string }>(
        "SELECT actor, details FROM audit_log WHERE action = 'application.update'",
      )
      .all();
    expect(audit.map((a) => a.actor)).toEqual(['cli']);
    expect(JSON.parse(audit[0]!.details).scopes).toEqual(['openid', 'profile', 'email']);
    expect(
      (await cli('apps', 'review', 'list', '--status', 'pending', '--config', config(), '--json')).json
        .reviews,
    ).toEqual([]);
  });
});

describe('production secret reveal', () => {
  const reveal = (live: Live) =>
    submitPage(live.b, `${live.base}?env=production`, `${live.base}/production-secret`, {});

  test('revealed once in the portal, then never again; the secret authenticates', async () => {
    const live = await approvedApp();
    const stored = p.ctx.db.sql
      .prepare<{ sealed_secret: string }>('SELECT sealed_secret FROM production_secret_reveals')
      .get()!;
    expect(stored.sealed_secret).not.toContain(live.clientSecret);
    expect((await page(live.b, `${live.base}?env=production`)).html).toContain('Reveal production secret');
    const first = await reveal(live);
    expect(first.res.status).toBe(200);
    const secret = /(cs_live_[\w-]+)/.exec(first.html)![1]!;
    expect(secret).toBe(live.clientSecret);
    const active = p.ctx.db.sql
      .prepare<{ secret_hash: string }>(
        'SELECT secret_hash FROM client_secrets WHERE revoked_at IS NULL AND environment_id = ?',
      )
      .get(live.environmentId)!;
    expect(active.secret_hash).toBe(await sha256Hex(secret));
    expect((await page(live.b, `${live.base}?env=production`)).html).not.toContain(
      'Reveal production secret',
    );
    const again = await reveal(live);
    expect(again.res.status).toBe(410);
    expect(again.html).not.toContain('cs_live_');
  });

  test('expires after 24 hours, and the job prunes it', async () => {
    const live = await approvedApp();
    p.ctx.clock.advance(24 * 3600_000 - 1000);
    expect(productionSecretRevealableUntil(p.ctx, live.applicationId)).toBeDefined();
    p.ctx.clock.advance(1000);
    expect(productionSecretRevealableUntil(p.ctx, live.applicationId)).toBeUndefined();
    expect(await revealProductionSecret(p.ctx, live.applicationId, { actor: 'cli' })).toBeUndefined();
    expect(pruneProductionSecrets(p.ctx)).toBe(1);
  });

  test('two concurrent reveals show it at most once', async () => {
    const live = await approvedApp();
    const { csrf } = await page(live.b, `${live.base}?env=production`);
    const post = () =>
      live.b.request(`${live.base}/production-secret`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: live.b.origin },
        body: new URLSearchParams({ csrf_token: csrf }).toString(),
      });
    const answers = await Promise.all([post(), post(), post()]);
    expect(answers.map((r) => r.status).sort()).toEqual([303, 410, 410]);
    const revealed = answers.find((r) => r.status === 303)!;
    expect(await (await live.b.get(location(revealed))).text()).toContain(live.clientSecret);
  });

  test('rotating the production secret first makes the pending reveal void', async () => {
    const live = await approvedApp();
    const rotate = `${live.base}/secret/rotate?env=production`;
    const rotated = await submitPage(live.b, rotate, rotate, {});
    expect(rotated.html).toContain('cs_live_');
    expect((await reveal(live)).res.status).toBe(410);
  });
});

/** A config file for the CLI on the portal's database. */
function config(): string {
  const path = join(p.ctx.dir, 'verity.toml');
  writeFileSync(path, testToml(p.ctx.dir, '[developer]\nsignup = "open"'));
  return path;
}
