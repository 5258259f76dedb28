import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createTestApp, type TestApp } from '../helpers/apps.ts';
import { type TestContext, testContext } from '../helpers/context.ts';
import { inProcess, REDIRECT } from '../oauth/fixtures.ts';
import { bearer, issueToken, setDocumentPolicy } from './fixtures.ts';

// What `/v1/capabilities/scopes` tells a developer a scope releases is exactly what UserInfo and the
// documents API release for it, for a persona who has every kind of data (Ada).
const ADA = 'psn_sandbox_ada';
const ALWAYS = ['documentReference', 'displayName', 'proof'];

interface PublicScope {
  name: string;
  description: string;
  claims: string[];
  requires: string[];
  environments: string[];
}

let ctx: TestContext;
let app: TestApp;
let scopes: PublicScope[];

beforeAll(async () => {
  ctx = await testContext();
  const res = await inProcess(ctx)('/v1/capabilities/scopes');
  scopes = ((await res.json()) as { data: { scopes: PublicScope[] } }).data.scopes;
  app = await createTestApp(ctx, {
    type: 'confidential',
    redirectUris: [REDIRECT],
    scopes: scopes.filter((s) => s.environments.includes('sandbox')).map((s) => s.name),
  });
  setDocumentPolicy(ctx, app, ['passport'], ['DE']);
});
afterAll(() => ctx?.cleanup());

async function get(path: string, token: string) {
  const res = await inProcess(ctx)(path, bearer(token));
  expect(res.status).toBe(200);
  return (await res.json()) as any;
}

describe('every sandbox scope releases what the capability catalogue advertises', () => {
  test('the catalogue lists the sandbox scopes', () => {
    expect(scopes.filter((s) => s.environments.includes('sandbox')).length).toBe(25);
  });

  test('UserInfo claims per scope', async () => {
    for (const s of scopes.filter((x) => x.environments.includes('sandbox'))) {
      const { accessToken } = await issueToken(ctx, app, { scopes: [s.name], personId: ADA });
      const claims = await get('/v1/userinfo', accessToken);
      expect(`${s.name}: ${Object.keys(claims).sort().join(' ')}`).toBe(
        `${s.name}: ${[...new Set(['sub', ...s.claims])].sort().join(' ')}`,
      );
    }
  });

  test('documents API fields per document scope: the one its description names, besides those always shown', async () => {
    ctx.clock.advance(10 * 60_000); // a fresh window of the token endpoint's per-IP limit
    for (const s of scopes.filter((x) => x.requires.includes('identity_documents'))) {
      if (!s.environments.includes('sandbox')) continue;
      const field = /Adds `(\w+)` to the documents API/.exec(s.description)?.[1];
      expect(field).toBeDefined();
      const { accessToken } = await issueToken(ctx, app, {
        scopes: ['identity_documents', s.name],
        personId: ADA,
      });
      const list = await get('/v1/userinfo/identity-documents', accessToken);
      const ref = list.data.documents[0].documentReference;
      const detail = await get(`/v1/userinfo/identity-documents/${encodeURIComponent(ref)}`, accessToken);
      expect(`${s.name}: ${Object.keys(detail.data).sort().join(' ')}`).toBe(
        `${s.name}: ${[...ALWAYS, field].sort().join(' ')}`,
      );
      // Without identity_documents the field still comes in UserInfo's `document` claim.
      const { accessToken: claimOnly } = await issueToken(ctx, app, { scopes: [s.name], personId: ADA });
      expect(Object.keys((await get('/v1/userinfo', claimOnly)).document)).toEqual([field!]);
    }
  });
});
