import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { getApplication, listApplications, listReviews } from '../../src/apps/application.store.ts';
import { rotateClientSecret } from '../../src/apps/client-secret.ts';
import { approveReview, rejectReview, requestProductionReview } from '../../src/apps/production-review.ts';
import {
  type CreateApplicationInput,
  createApplication,
  deleteApplication,
  updateApplication,
} from '../../src/apps/registration.ts';
import { listAudit } from '../../src/audit/audit.store.ts';
import { sha256Hex } from '../../src/crypto/tokens.ts';
import { createDeveloper } from '../../src/developer/developer.store.ts';
import { ValidationError } from '../../src/errors.ts';
import { clientRegistry, findClient, verifyClientSecret } from '../../src/oauth/client.store.ts';
import { unix } from '../../src/platform/clock.ts';
import { type TestContext, testContext } from '../helpers/context.ts';
import { storedText } from '../helpers/db-probes.ts';

let ctx: TestContext;
beforeEach(async () => {
  ctx = await testContext();
});
afterEach(() => ctx.cleanup());

/** The client as the OAuth endpoints see it, with its environment's redirect URIs and document policy. */
function findClientByClientId(clientId: string) {
  const client = findClient(ctx, clientId);
  if (!client) return undefined;
  const env = getApplication(ctx.db, client.applicationId).environments.find(
    (e) => e.environment === client.environment,
  )!;
  const { redirectUris, documentTypes, documentCountries } = env;
  return { ...client, redirectUris, documentTypes, documentCountries };
}

/** Whether the secret authenticates the client with this ID, as the token endpoint checks it. */
const secretWorks = (clientId: string, secret: string) =>
  verifyClientSecret(ctx, findClient(ctx, clientId)!, secret, unix(ctx.clock));

const base: CreateApplicationInput = {
  name: 'Shop',
  type: 'confidential',
  redirectUris: ['https://shop.example.com/callback', 'http://localhost:3000/cb'],
  scopes: ['openid', 'email', 'identity_documents', 'document_type'],
  actor: 'cli',
};

function dbBytes(): string {
  return storedText(ctx.db);
}

async function rejects(p: Promise<unknown>): Promise<ValidationError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(ValidationError);
    return e as ValidationError;
  }
  throw new Error('expected a rule violation');
}

describe('creating applications', () => {
  test('a confidential client gets a sandbox client ID and a secret that authenticates it', async () => {
    const app = await createApplication(ctx.db, ctx.clock, base);
    expect(app.environment).toBe('sandbox');
    expect(app.applicationId).toMatch(/^app_/);
    expect(app.clientId).toMatch(/^cid_test_[A-Za-z0-9_-]{22}$/);
    expect(app.clientSecret).toMatch(/^cs_test_[A-Za-z0-9_-]{43}$/);
    const client = findClientByClientId(app.clientId)!;
    expect(client).toMatchObject({
      applicationId: app.applicationId,
      environment: 'sandbox',
      type: 'confidential',
      pkce: 'required',
      redirectUris: base.redirectUris,
      scopes: ['openid', 'email', 'identity_documents', 'document_type'],
      documentTypes: ['passport', 'id_card', 'driving_licence', 'residence_permit'],
      fullNumberApproved: false,
    });
    expect(client.documentCountries).toContain('DE');
    expect(secretWorks(app.clientId, app.clientSecret!)).toBe(true);
    expect(secretWorks(app.clientId, `${app.clientSecret}x`)).toBe(false);
    expect(secretWorks(app.clientId, '')).toBe(false);
  });

  test('a public client gets no secret', async () => {
    const app = await createApplication(ctx.db, ctx.clock, { ...base, type: 'public' });
    expect(app.clientSecret).toBeUndefined();
    expect('clientSecret' in app).toBe(false);
    expect(getApplication(ctx.db, app.applicationId).environments[0]!.activeSecrets).toBe(0);
    await expect(
      rotateClientSecret(ctx.db, ctx.clock, app.applicationId, 'sandbox', { actor: 'cli' }),
    ).rejects.toThrow('public clients have no client secret');
  });

  test('the secret is never stored in clear; its SHA-256 is', async () => {
    const app = await createApplication(ctx.db, ctx.clock, base);
    const rotated = await rotateClientSecret(ctx.db, ctx.clock, app.applicationId, 'sandbox', {
      actor: 'cli',
    });
    const prod = await approveReview(ctx, app.applicationId, { actor: 'cli' });
    const raw = dbBytes();
    for (const secret of [app.clientSecret!, rotated.clientSecret, prod.clientSecret!]) {
      expect(raw.includes(secret)).toBe(false);
      expect(raw.includes(secret.slice(8))).toBe(false);
      expect(raw.includes(await sha256Hex(secret))).toBe(true);
    }
    expect(JSON.stringify(listAudit(ctx.db))).not.toContain('cs_');
  });

  test('every registration rule is enforced with its message, and nothing is written', async () => {
    const cases: [Partial<CreateApplicationInput>, string][] = [
      [{ redirectUris: ['http://example.com/cb'] }, 'must use https (http is allowed only for localhost'],
      [{ redirectUris: ['https://*.example.com/cb'] }, 'wildcards are not allowed'],
      [{ redirectUris: ['https://example.com/cb#x'] }, 'fragments are not allowed'],
      [{ redirectUris: ['https://user:pw@example.com/cb'] }, 'userinfo (user:password@) is not allowed'],
      [{ redirectUris: ['/cb'] }, 'relative URIs are not allowed'],
      [{ redirectUris: ['https://example.com./cb'] }, 'the host must not end with a dot'],
      [{ redirectUris: [] }, 'at least one redirect URI is required'],
      [{ scopes: ['openid', 'document_number_full'] }, 'document_number_full is never granted in sandbox'],
      [{ scopes: ['openid', 'everything'] }, 'unknown scope "everything"'],
      [{ scopes: [] }, 'at least one scope is required'],
      [{ type: 'spa' }, 'the application type must be "confidential" or "public"'],
      [{ name: '  ' }, 'the application name must not be empty'],
      [{ pkce: 'never' }, 'the PKCE mode must be "required" or "public-only"'],
      [{ documentTypes: 'visa' }, 'unknown document type "visa"'],
      [{ documentCountries: 'ZZ' }, '"ZZ" is not an ISO 3166-1 alpha-2 country code'],
      [{ ownerDeveloperId: 'dev_missing' }, 'developer dev_missing not found'],
    ];
    for (const [patch, message] of cases) {
      const e = await rejects(createApplication(ctx.db, ctx.clock, { ...base, ...patch }));
      expect(e.message).toContain(message);
    }
    expect(listApplications(ctx.db)).toEqual([]);
    expect(listAudit(ctx.db)).toEqual([]);
  });

  test('document policy and owner are stored', async () => {
    const { developerId } = createDeveloper(ctx.db, ctx.clock, { email: 'owner@example.com' });
    const app = await createApplication(ctx.db, ctx.clock, {
      ...base,
      ownerDeveloperId: developerId,
      documentTypes: 'passport',
      documentCountries: 'de fr',
      pkce: 'public-only',
      plan: 'enterprise',
    });
    const view = getApplication(ctx.db, app.applicationId);
    expect(view).toMatchObject({ ownerDeveloperId: developerId, pkce: 'public-only', plan: 'enterprise' });
    expect(view.environments[0]).toMatchObject({
      documentTypes: ['passport'],
      documentCountries: ['DE', 'FR'],
    });
    expect(listApplications(ctx.db, { ownerDeveloperId: developerId }).length).toBe(1);
    expect(listApplications(ctx.db, { ownerDeveloperId: 'dev_other' }).length).toBe(0);
  });
});

describe('client secrets', () => {
  test('rotation issues a new secret and the old one stops working at once', async () => {
    const app = await createApplication(ctx.db, ctx.clock, base);
    const rotated = await rotateClientSecret(ctx.db, ctx.clock, app.applicationId, 'sandbox', {
      actor: 'cli',
    });
    expect(rotated.clientId).toBe(app.clientId);
    expect(rotated.clientSecret).toMatch(/^cs_test_/);
    expect(rotated.clientSecret).not.toBe(app.clientSecret);
    expect(secretWorks(app.clientId, app.clientSecret!)).toBe(false);
    expect(secretWorks(rotated.clientId, rotated.clientSecret)).toBe(true);
    expect(getApplication(ctx.db, app.applicationId).environments[0]!.activeSecrets).toBe(1);
  });

  test('production has no secret to rotate before approval', async () => {
    const app = await createApplication(ctx.db, ctx.clock, base);
    await expect(
      rotateClientSecret(ctx.db, ctx.clock, app.applicationId, 'production', { actor: 'cli' }),
    ).rejects.toThrow('it exists only after "apps review approve"');
  });
});

describe('environments', () => {
  test('production exists only after approval, with live credentials and the reviewed scopes', async () => {
    const app = await createApplication(ctx.db, ctx.clock, base);
    expect(getApplication(ctx.db, app.applicationId).environments.map((e) => e.environment)).toEqual([
      'sandbox',
    ]);
    requestProductionReview(ctx.db, ctx.clock, app.applicationId, {
      justification: 'Age checks for our shop',
      scopes: ['openid', 'age_over_18'],
      actor: 'developer:dev_1',
    });
    expect(getApplication(ctx.db, app.applicationId).environments.length).toBe(1);
    const prod = await approveReview(ctx, app.applicationId, { actor: 'cli' });
    expect(prod).toMatchObject({ applicationId: app.applicationId, environment: 'production' });
    expect(prod.clientId).toMatch(/^cid_live_/);
    expect(prod.clientSecret).toMatch(/^cs_live_[A-Za-z0-9_-]{43}$/);
    const client = findClientByClientId(prod.clientId)!;
    expect(client).toMatchObject({ environment: 'production', scopes: ['openid', 'age_over_18'] });
    expect(client.redirectUris).toEqual([...base.redirectUris]);
    expect(secretWorks(prod.clientId, prod.clientSecret!)).toBe(true);
    expect(listReviews(ctx.db, { status: 'approved' }).length).toBe(1);
  });

  test('the first approval starts production with the settings the review was filed with, not later sandbox edits', async () => {
    const app = await createApplication(ctx.db, ctx.clock, base);
    const review = requestProductionReview(ctx.db, ctx.clock, app.applicationId, {
      justification: 'Age checks for our shop',
      actor: 'developer:dev_1',
    });
    expect(review.redirectUris).toEqual([...base.redirectUris]);
    // The developer changes the sandbox while the operator is still reading the review.
    updateApplication(ctx.db, ctx.clock, app.applicationId, {
      redirectUris: ['https://evil.example/steal'],
      webOrigins: ['https://evil.example'],
      actor: 'developer:dev_1',
    });
    const prod = await approveReview(ctx, app.applicationId, { actor: 'cli', reviewId: review.reviewId });
    const client = findClient(ctx, prod.clientId)!;
    expect(findClientByClientId(prod.clientId)!.redirectUris).toEqual([...base.redirectUris]);
    expect(clientRegistry(ctx).webOrigins(client.environmentId)).toEqual([]);
  });

  test('approving a named review needs it pending: a withdrawn, rejected or unknown one changes nothing', async () => {
    const app = await createApplication(ctx.db, ctx.clock, base);
    const review = requestProductionReview(ctx.db, ctx.clock, app.applicationId, {
      justification: 'Age checks for our shop',
      actor: 'developer:dev_1',
    });
    rejectReview(ctx.db, ctx.clock, app.applicationId, { reason: 'Not yet.', actor: 'cli' });
    for (const reviewId of [review.reviewId, 'rev_unknown'])
      await expect(approveReview(ctx, app.applicationId, { actor: 'cli', reviewId })).rejects.toThrow(
        `review ${reviewId} is not the pending production review of ${app.applicationId} (none is pending)`,
      );
    expect(getApplication(ctx.db, app.applicationId).environments.map((e) => e.environment)).toEqual([
      'sandbox',
    ]);
  });

  test("the first approval starts production with the sandbox's post-logout redirect URIs", async () => {
    const bye = 'https://shop.example.com/bye';
    const app = await createApplication(ctx.db, ctx.clock, { ...base, postLogoutRedirectUris: [bye, bye] });
    const sandbox = () => getApplication(ctx.db, app.applicationId).environments[0]!;
    expect(sandbox().postLogoutRedirectUris).toEqual([bye]);
    const prod = await approveReview(ctx, app.applicationId, { actor: 'cli' });
    const client = findClient(ctx, prod.clientId)!;
    expect(clientRegistry(ctx).postLogoutRedirectUris(client.environmentId)).toEqual([bye]);
    // None is fine; the rules are the redirect URIs'.
    updateApplication(ctx.db, ctx.clock, app.applicationId, {
      removePostLogoutRedirectUris: [bye],
      actor: 'cli',
    });
    expect(sandbox().postLogoutRedirectUris).toEqual([]);
    expect(() =>
      updateApplication(ctx.db, ctx.clock, app.applicationId, {
        addPostLogoutRedirectUris: ['https://shop.example.com/bye#top'],
        actor: 'cli',
      }),
    ).toThrow('post-logout redirect URI "https://shop.example.com/bye#top": fragments are not allowed');
  });

  test('a credential of one environment is rejected in the other', async () => {
    const app = await createApplication(ctx.db, ctx.clock, base);
    const prod = await approveReview(ctx, app.applicationId, { actor: 'cli' });
    const prodEnv = findClientByClientId(prod.clientId)!.environmentId;
    expect(secretWorks(prod.clientId, app.clientSecret!)).toBe(false);
    expect(secretWorks(app.clientId, prod.clientSecret!)).toBe(false);
    // A stored hash under the wrong prefix (a tampered row) still never authenticates.
    ctx.db.sql
      .prepare('UPDATE client_secrets SET secret_hash = ? WHERE environment_id = ?')
      .run(await sha256Hex(app.clientSecret!), prodEnv);
    expect(secretWorks(prod.clientId, app.clientSecret!)).toBe(false);
    // A client ID relabelled with the other prefix is unknown.
    expect(findClientByClientId(app.clientId.replace('cid_test_', 'cid_live_'))).toBeUndefined();
    ctx.db.sql
      .prepare('UPDATE application_environments SET client_id = ? WHERE id = ?')
      .run('cid_test_relabelled', prodEnv);
    expect(findClientByClientId('cid_test_relabelled')).toBeUndefined();
  });

  test('a public client gets a live client ID and no secret', async () => {
    const app = await createApplication(ctx.db, ctx.clock, { ...base, type: 'public' });
    const prod = await approveReview(ctx, app.applicationId, { actor: 'cli' });
    expect(prod.clientId).toMatch(/^cid_live_/);
    expect('clientSecret' in prod).toBe(false);
  });

  test('document_number_full needs its own justification and then reaches production only', async () => {
    const app = await createApplication(ctx.db, ctx.clock, base);
    const e = (() => {
      try {
        requestProductionReview(ctx.db, ctx.clock, app.applicationId, {
          justification: 'KYC',
          scopes: ['openid', 'document_number_full'],
          actor: 'cli',
        });
      } catch (err) {
        return err as ValidationError;
      }
    })();
    expect(e?.message).toContain('justification for document_number_full');
    requestProductionReview(ctx.db, ctx.clock, app.applicationId, {
      justification: 'KYC',
      scopes: ['openid', 'identity_documents', 'document_number_full'],
      fullNumberJustification: 'Anti-money-laundering law requires the number',
      actor: 'cli',
    });
    const prod = await approveReview(ctx, app.applicationId, { actor: 'cli' });
    expect(findClientByClientId(prod.clientId)).toMatchObject({
      fullNumberApproved: true,
      scopes: ['openid', 'identity_documents', 'document_number_full'],
    });
    // Sandbox still refuses it, even with the flag set.
    expect(() =>
      updateApplication(ctx.db, ctx.clock, app.applicationId, {
        scopes: ['document_number_full'],
        actor: 'cli',
      }),
    ).toThrow('never granted in sandbox');
  });

  test('a rejected review leaves no production; a new review can follow', async () => {
    const app = await createApplication(ctx.db, ctx.clock, base);
    requestProductionReview(ctx.db, ctx.clock, app.applicationId, { justification: 'x', actor: 'cli' });
    expect(() =>
      requestProductionReview(ctx.db, ctx.clock, app.applicationId, { justification: 'again', actor: 'cli' }),
    ).toThrow('already has a pending production review');
    expect(() => rejectReview(ctx.db, ctx.clock, app.applicationId, { reason: ' ', actor: 'cli' })).toThrow(
      'a reason is required',
    );
    const rejected = rejectReview(ctx.db, ctx.clock, app.applicationId, {
      reason: 'Privacy policy missing',
      actor: 'cli',
    });
    expect(rejected).toMatchObject({ status: 'rejected', decisionReason: 'Privacy policy missing' });
    expect(getApplication(ctx.db, app.applicationId).environments.length).toBe(1);
    expect(getApplication(ctx.db, app.applicationId).latestReview?.status).toBe('rejected');
    expect(() =>
      rejectReview(ctx.db, ctx.clock, app.applicationId, { reason: 'again', actor: 'cli' }),
    ).toThrow('no pending production review');
    requestProductionReview(ctx.db, ctx.clock, app.applicationId, { justification: 'fixed', actor: 'cli' });
    expect(listReviews(ctx.db, { status: 'pending' }).length).toBe(1);
  });

  test('approving again changes production scopes and keeps its credentials', async () => {
    const app = await createApplication(ctx.db, ctx.clock, base);
    const first = await approveReview(ctx, app.applicationId, { actor: 'cli' });
    requestProductionReview(ctx.db, ctx.clock, app.applicationId, {
      justification: 'more',
      scopes: ['openid', 'email', 'age'],
      actor: 'cli',
    });
    const second = await approveReview(ctx, app.applicationId, { actor: 'cli' });
    expect(second.clientId).toBe(first.clientId);
    expect(second.clientSecret).toBeUndefined();
    const client = findClientByClientId(first.clientId)!;
    expect(client.scopes).toEqual(['openid', 'email', 'age']);
    expect(secretWorks(first.clientId, first.clientSecret!)).toBe(true);
  });
});

describe('updating and deleting', () => {
  test('redirect URIs can be set, added and removed; rules apply to the result', async () => {
    const app = await createApplication(ctx.db, ctx.clock, base);
    const id = app.applicationId;
    updateApplication(ctx.db, ctx.clock, id, {
      addRedirectUris: ['https://shop.example.com/cb2'],
      actor: 'cli',
    });
    updateApplication(ctx.db, ctx.clock, id, {
      removeRedirectUris: ['http://localhost:3000/cb'],
      actor: 'cli',
    });
    expect(findClientByClientId(app.clientId)!.redirectUris).toEqual([
      'https://shop.example.com/callback',
      'https://shop.example.com/cb2',
    ]);
    expect(() =>
      updateApplication(ctx.db, ctx.clock, id, {
        addRedirectUris: ['https://x.example.com/#'],
        actor: 'cli',
      }),
    ).toThrow('fragments are not allowed');
    expect(() =>
      updateApplication(ctx.db, ctx.clock, id, {
        removeRedirectUris: ['https://nope.example/cb'],
        actor: 'cli',
      }),
    ).toThrow('is not registered');
    expect(() => updateApplication(ctx.db, ctx.clock, id, { redirectUris: [], actor: 'cli' })).toThrow(
      'at least one redirect URI is required',
    );
    updateApplication(ctx.db, ctx.clock, id, { redirectUris: ['https://new.example.com/cb'], actor: 'cli' });
    expect(findClientByClientId(app.clientId)!.redirectUris).toEqual(['https://new.example.com/cb']);
  });

  test('name, scopes, policy, pkce and plan change; production changes need production', async () => {
    const app = await createApplication(ctx.db, ctx.clock, base);
    const id = app.applicationId;
    ctx.clock.advance(10_000);
    const view = updateApplication(ctx.db, ctx.clock, id, {
      name: 'Shop 2',
      scopes: ['openid', 'profile'],
      documentTypes: 'id_card',
      documentCountries: 'none',
      pkce: 'public-only',
      plan: 'gold',
      actor: 'cli',
    });
    expect(view).toMatchObject({ name: 'Shop 2', pkce: 'public-only', plan: 'gold' });
    expect(view.updatedAt).toBe(view.createdAt + 10);
    expect(view.environments[0]).toMatchObject({
      scopes: ['openid', 'profile'],
      documentTypes: ['id_card'],
      documentCountries: [],
    });
    expect(() =>
      updateApplication(ctx.db, ctx.clock, id, {
        environment: 'production',
        scopes: ['openid'],
        actor: 'cli',
      }),
    ).toThrow('has no production environment');
    expect(() => updateApplication(ctx.db, ctx.clock, id, { actor: 'cli' })).toThrow('nothing to change');
    await approveReview(ctx, id, { actor: 'cli' });
    expect(() =>
      updateApplication(ctx.db, ctx.clock, id, {
        environment: 'production',
        scopes: ['document_number_full'],
        actor: 'cli',
      }),
    ).toThrow('needs an approved production review');
    updateApplication(ctx.db, ctx.clock, id, {
      environment: 'production',
      redirectUris: ['https://shop.example.com/live'],
      actor: 'cli',
    });
    const envs = getApplication(ctx.db, id).environments;
    expect(envs.map((e) => e.redirectUris)).toEqual([
      ['https://shop.example.com/callback', 'http://localhost:3000/cb'],
      ['https://shop.example.com/live'],
    ]);
  });

  test('deleting an application removes both environments and their credentials', async () => {
    const app = await createApplication(ctx.db, ctx.clock, base);
    const prod = await approveReview(ctx, app.applicationId, { actor: 'cli' });
    deleteApplication(ctx.db, ctx.clock, app.applicationId, { actor: 'cli' });
    expect(findClientByClientId(app.clientId)).toBeUndefined();
    expect(findClientByClientId(prod.clientId)).toBeUndefined();
    expect(ctx.db.sql.prepare('SELECT count(*) AS n FROM client_secrets').get()).toEqual({ n: 0 });
    expect(() => deleteApplication(ctx.db, ctx.clock, app.applicationId, { actor: 'cli' })).toThrow(
      'not found',
    );
  });
});

describe('audit', () => {
  test('every change is recorded with its actor and no secret', async () => {
    const app = await createApplication(ctx.db, ctx.clock, base);
    const id = app.applicationId;
    updateApplication(ctx.db, ctx.clock, id, { name: 'Renamed', actor: 'developer:dev_1' });
    const rotated = await rotateClientSecret(ctx.db, ctx.clock, id, 'sandbox', { actor: 'cli' });
    requestProductionReview(ctx.db, ctx.clock, id, { justification: 'go', actor: 'developer:dev_1' });
    rejectReview(ctx.db, ctx.clock, id, { reason: 'no', actor: 'cli' });
    const prod = await approveReview(ctx, id, { actor: 'cli' });
    deleteApplication(ctx.db, ctx.clock, id, { actor: 'cli' });
    const rows = listAudit(ctx.db, { target: id }).reverse();
    expect(rows.map((r) => [r.actor, r.action])).toEqual([
      ['cli', 'application.create'],
      ['developer:dev_1', 'application.update'],
      ['cli', 'client_secret.rotate'],
      ['developer:dev_1', 'review.request'],
      ['cli', 'review.reject'],
      ['cli', 'review.approve'],
      ['cli', 'application.delete'],
    ]);
    expect(rows[0]!.details).toMatchObject({ clientId: app.clientId, type: 'confidential' });
    expect(rows[5]!.details).toMatchObject({ clientId: prod.clientId, createdProduction: true });
    const text = JSON.stringify(rows);
    for (const s of [app.clientSecret!, rotated.clientSecret, prod.clientSecret!])
      expect(text).not.toContain(s);
  });
});
