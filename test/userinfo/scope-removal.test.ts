import { afterEach, expect, test } from 'bun:test';
import { updateApplication } from '../../src/apps/registration.ts';
import { createTestApp } from '../helpers/apps.ts';
import { type TestContext, testContext } from '../helpers/context.ts';
import { inProcess, REDIRECT } from '../oauth/fixtures.ts';
import { bearer, issueToken, setDocumentPolicy } from './fixtures.ts';

let ctx: TestContext;
afterEach(() => ctx?.cleanup());

// A scope the application no longer has stops being released at once, as a narrowed document policy
// does, not when the token issued before expires (up to 15 minutes later).
test('a scope taken from the application is no longer released to the tokens it already holds', async () => {
  ctx = await testContext();
  const scopes = ['openid', 'email', 'date_of_birth', 'identity_documents'];
  const app = await createTestApp(ctx, { type: 'confidential', redirectUris: [REDIRECT], scopes });
  setDocumentPolicy(ctx, app, ['passport', 'id_card'], ['FR']);
  const { accessToken } = await issueToken(ctx, app, { scopes, personId: 'psn_sandbox_ben' });
  const get = (path: string) => inProcess(ctx)(path, bearer(accessToken));
  const before = (await (await get('/v1/userinfo')).json()) as Record<string, unknown>;
  expect(before.birthdate).toBe('1985-04-22');
  expect((await get('/v1/userinfo/identity-documents')).status).toBe(200);

  updateApplication(ctx.db, ctx.clock, app.applicationId, { scopes: ['openid', 'email'], actor: 'cli' });
  const after = (await (await get('/v1/userinfo')).json()) as Record<string, unknown>;
  expect(after.birthdate).toBeUndefined();
  expect(after.email).toBe(before.email);
  const documents = await get('/v1/userinfo/identity-documents');
  expect(documents.status).toBe(403);
  expect(documents.headers.get('www-authenticate')).toContain('insufficient_scope');
});
