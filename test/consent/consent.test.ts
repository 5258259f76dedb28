import { afterEach, expect, test } from 'bun:test';
import { createConsentStore } from '../../src/consent/consent.store.ts';
import { findActiveConsent, grantConsent } from '../../src/consent/grant.ts';
import { subjectFor } from '../../src/keys/pairwise.ts';
import { createTestApp, type TestApp } from '../helpers/apps.ts';
import { type TestContext, testContext } from '../helpers/context.ts';
import { refuseWrites } from '../helpers/db-probes.ts';

let ctx: TestContext;
let app: TestApp;
afterEach(() => ctx?.cleanup());

async function setup(extra = '') {
  ctx = await testContext({ extra });
  app = await createTestApp(ctx, {
    type: 'confidential',
    redirectUris: ['https://rp.example/cb'],
    scopes: 'openid email profile',
    subscribed: true,
  });
}

const key = (
  over: Partial<{
    personId: string;
    sessionIdHash: string | null;
    purpose: string;
    scopes: string[];
    environmentId: string;
  }> = {},
) => ({
  environmentId: app.environmentId,
  personId: 'psn_sandbox_ada',
  sessionIdHash: null,
  purpose: 'Sign in',
  scopes: ['openid', 'email'],
  ...over,
});

const grant = (over = {}) =>
  grantConsent(ctx, { applicationId: app.applicationId, environment: 'sandbox', ...key(over) });

test('grant stores a sorted scope set, expires after [consent] max_age and records consent.granted', async () => {
  await setup('[consent]\nmax_age = "30d"');
  const c = await grant({ scopes: ['email', 'openid', 'email'] });
  expect(c.scopes).toEqual(['email', 'openid']);
  expect(c.status).toBe('active');
  expect(c.expiresAt - c.grantedAt).toBe(30 * 86400);
  const stored = createConsentStore(ctx.db).get(c.id)!;
  expect(stored.scopes).toEqual(['email', 'openid']);

  const events = ctx.db.sql
    .prepare<{ type: string; body: string; application_id: string; environment: string }>(
      'SELECT * FROM webhook_events',
    )
    .all();
  expect(events).toHaveLength(1);
  const body = JSON.parse(events[0]!.body);
  expect(body.type).toBe('consent.granted');
  expect(events[0]!.application_id).toBe(app.applicationId);
  expect(body.data).toEqual({
    consentId: c.id,
    applicationId: app.applicationId,
    environment: 'sandbox',
    sub: await subjectFor(ctx, app.applicationId, 'psn_sandbox_ada'),
    scopes: ['email', 'openid'],
    purpose: 'Sign in',
    at: ctx.clock.now().toISOString(),
  });
  // The sub is pairwise, never the person id.
  expect(body.data.sub).not.toContain('psn_');
});

test('the consent row and its event commit together: no event without the row', async () => {
  await setup();
  refuseWrites(ctx.db, 'webhook_events');
  await expect(grant()).rejects.toThrow();
  expect(ctx.db.sql.prepare('SELECT * FROM consents').all()).toHaveLength(0);
});

test('findActiveConsent matches only an identical active, unexpired consent', async () => {
  await setup();
  const c = await grant();
  const find = (over = {}) => findActiveConsent(ctx.db, ctx.clock, key(over))?.id;
  expect(find()).toBe(c.id);
  expect(find({ scopes: ['email', 'openid'] })).toBe(c.id);
  expect(find({ scopes: ['openid'] })).toBeUndefined();
  expect(find({ scopes: ['openid', 'email', 'profile'] })).toBeUndefined();
  expect(find({ purpose: 'Sign in ' })).toBeUndefined();
  expect(find({ personId: 'psn_sandbox_ben' })).toBeUndefined();
  const other = await createTestApp(ctx, {
    type: 'public',
    redirectUris: ['https://x.example/cb'],
    scopes: 'openid email',
  });
  expect(find({ environmentId: other.environmentId })).toBeUndefined();

  ctx.db.sql.prepare("UPDATE consents SET status = 'revoked' WHERE id = ?").run(c.id);
  expect(find()).toBeUndefined();
  ctx.db.sql.prepare("UPDATE consents SET status = 'active' WHERE id = ?").run(c.id);
  ctx.clock.advance(365 * 86400_000);
  expect(find()).toBeUndefined();
});
