import { Database } from 'bun:sqlite';
import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { fixedClock } from '../../src/platform/clock.ts';
import {
  ApiResponseError,
  createTransaction,
  exchangeCode,
  getDocument,
  getDocumentProof,
  listDocuments,
  memoryTransactionStore,
  OAuthResponseError,
  RateLimitError,
  sqliteTransactionStore,
  type TransactionStore,
  UnexpectedResponseError,
  userinfo,
} from '../../src/sdk/index.ts';
import { tempDir } from '../helpers/context.ts';
import { type FakeVerity, startFakeVerity } from './fake-verity.ts';

let fake: FakeVerity;
const clock = fixedClock(Date.UTC(2026, 5, 1, 12));
beforeEach(async () => {
  fake = await startFakeVerity();
  fake.token = () =>
    Response.json({ access_token: 'at_1', token_type: 'Bearer', expires_in: 900, scope: 'email' });
});
afterEach(() => fake.stop());

const base = () => ({
  tokenEndpoint: `${fake.url}/v1/oauth/token`,
  clientId: 'cid_test_a b',
  code: 'the-code',
  redirectUri: 'http://localhost:8081/callback',
  codeVerifier: 'v'.repeat(43),
  clock,
});
const lastToken = () => fake.requests.filter((r) => r.path === '/v1/oauth/token').at(-1)!;

describe('exchangeCode', () => {
  test('posts JSON with Basic credentials that are form-encoded before base64', async () => {
    const secret = 'cs_test_with:colon+plus%percent space';
    const tokens = await exchangeCode({ ...base(), clientSecret: secret });
    expect(tokens.access_token).toBe('at_1');
    const req = lastToken();
    expect(req.headers.get('content-type')).toBe('application/json');
    expect(req.headers.get('accept')).toBe('application/json');
    const decoded = atob(req.headers.get('authorization')!.replace(/^Basic /, ''));
    expect(decoded).toBe('cid_test_a+b:cs_test_with%3Acolon%2Bplus%25percent+space');
    const body = JSON.parse(req.body);
    expect(body).toEqual({
      grant_type: 'authorization_code',
      code: 'the-code',
      redirect_uri: 'http://localhost:8081/callback',
      client_id: 'cid_test_a b',
      code_verifier: 'v'.repeat(43),
    });
  });

  test('client_secret_post puts the secret in the body; a public client sends none', async () => {
    await exchangeCode({ ...base(), clientSecret: 'cs_test_s', authMethod: 'client_secret_post' });
    expect(lastToken().headers.get('authorization')).toBeNull();
    expect(JSON.parse(lastToken().body).client_secret).toBe('cs_test_s');
    await exchangeCode(base());
    expect(lastToken().headers.get('authorization')).toBeNull();
    expect(JSON.parse(lastToken().body).client_secret).toBeUndefined();
    expect(JSON.parse(lastToken().body).code_verifier).toBe('v'.repeat(43));
  });

  test('an OAuth error comes back typed with its code, description and status', async () => {
    fake.token = () =>
      Response.json(
        { error: 'invalid_client', error_description: 'client authentication failed' },
        { status: 401, headers: { 'www-authenticate': 'Basic realm="verity"' } },
      );
    const err = await exchangeCode({ ...base(), clientSecret: 'x' }).catch((e) => e);
    expect(err).toBeInstanceOf(OAuthResponseError);
    expect(err.code).toBe('invalid_client');
    expect(err.status).toBe(401);
    expect(err.wwwAuthenticate).toContain('Basic');
  });

  test('429 surfaces Retry-After in seconds', async () => {
    fake.token = () =>
      Response.json(
        { error: { code: 'RATE_LIMIT_EXCEEDED', message: 'slow down', requestId: 'r1' } },
        { status: 429, headers: { 'retry-after': '42' } },
      );
    const err = await exchangeCode(base()).catch((e) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(err.retryAfterSeconds).toBe(42);
  });
});

describe('userinfo and documents', () => {
  const p = () => ({ baseUrl: fake.url, accessToken: 'at_abc', clock });

  // OIDC Core §5.3.2: the UserInfo sub must be the ID token's before any of its claims are used.
  test("an answer about another sub than the ID token's is refused when the sub is given", async () => {
    fake.userinfo = () => Response.json({ sub: 'someone-else', email: 'eve@example.com' });
    expect(await userinfo({ ...p(), expectedSub: 's1' }).catch((e) => e)).toBeInstanceOf(
      UnexpectedResponseError,
    );
    expect((await userinfo(p())).sub).toBe('someone-else');
    fake.userinfo = () => Response.json({ sub: 's1' });
    expect((await userinfo({ ...p(), expectedSub: 's1' })).sub).toBe('s1');
  });

  test('sends the bearer token; an absent claim stays undefined, never false', async () => {
    fake.userinfo = () => Response.json({ sub: 's1', email: 'ada@example.com', age_over_18: false });
    const info = await userinfo(p());
    expect(fake.requests.at(-1)!.headers.get('authorization')).toBe('Bearer at_abc');
    expect(info.email).toBe('ada@example.com');
    expect(info.age_over_18).toBe(false);
    expect(info.identity_verified).toBeUndefined();
    expect('identity_verified' in info).toBe(false);
  });

  // The bodies and challenges are the real server's (src/auth/bearer.ts through src/http/errors.ts).
  const bearerError = (code: string, status: number) =>
    Response.json(
      { error: { code, message: `the server says ${code}`, requestId: 'req_9' } },
      { status, headers: { 'www-authenticate': `Bearer error="${code}"` } },
    );

  test('an expired or revoked token is an OAuthResponseError invalid_token, as the docs promise', async () => {
    fake.userinfo = () => bearerError('invalid_token', 401);
    const revoked = await userinfo(p()).catch((e) => e);
    expect(revoked).toBeInstanceOf(OAuthResponseError);
    expect(revoked).not.toBeInstanceOf(ApiResponseError);
    expect(revoked.code).toBe('invalid_token');
    expect(revoked.description).toBe('the server says invalid_token');
    expect(revoked.status).toBe(401);
    expect(revoked.requestId).toBe('req_9');
    expect(revoked.wwwAuthenticate).toBe('Bearer error="invalid_token"');

    fake.documents = () => bearerError('invalid_token', 401);
    expect(await getDocument({ ...p(), documentReference: 'r1' }).catch((e) => e)).toBeInstanceOf(
      OAuthResponseError,
    );
  });

  test('a missing scope is an OAuthResponseError insufficient_scope; a missing document an ApiResponseError', async () => {
    fake.documents = (_req, ref) =>
      ref
        ? Response.json(
            {
              error: { code: 'IDENTITY_DOCUMENT_NOT_FOUND', message: 'no such document', requestId: 'req_1' },
            },
            { status: 404 },
          )
        : bearerError('insufficient_scope', 403);
    const scope = await listDocuments(p()).catch((e) => e);
    expect(scope).toBeInstanceOf(OAuthResponseError);
    expect(scope.code).toBe('insufficient_scope');
    expect(scope.status).toBe(403);
    const missing = await getDocument({ ...p(), documentReference: 'ref_1' }).catch((e) => e);
    expect(missing).toBeInstanceOf(ApiResponseError);
    expect(missing.code).toBe('IDENTITY_DOCUMENT_NOT_FOUND');
    expect(missing.requestId).toBe('req_1');
    expect(fake.requests.at(-1)!.path).toBe('/v1/userinfo/identity-documents/ref_1');
  });

  // `..` would be resolved by the URL and send the access token to /v1/userinfo/proof.
  test('a reference that is not base64url is refused before any request carries the token', async () => {
    const before = fake.requests.length;
    for (const documentReference of ['..', '.', 'ref/1', 'a?b', ''])
      for (const call of [getDocument, getDocumentProof])
        expect(await call({ ...p(), documentReference }).catch((e) => e)).toBeInstanceOf(TypeError);
    expect(fake.requests.length).toBe(before);
  });

  test('a bare Bearer challenge without a body is an OAuthResponseError too', async () => {
    fake.userinfo = () =>
      new Response(null, {
        status: 401,
        headers: { 'www-authenticate': 'Bearer error="invalid_token", error_description="consent revoked"' },
      });
    const revoked = await userinfo(p()).catch((e) => e);
    expect(revoked).toBeInstanceOf(OAuthResponseError);
    expect(revoked.code).toBe('invalid_token');
    expect(revoked.description).toBe('consent revoked');
  });

  test('lists and reads documents', async () => {
    const summary = { documentReference: 'r1', displayName: 'Passport', documentType: 'passport' };
    fake.documents = (_req, ref) =>
      ref
        ? Response.json({
            data: {
              ...summary,
              proof: {
                type: 'verity_attestation_ref',
                attestationId: 'a',
                schemaVersion: '1',
                status: 'active',
                proofHash: 'h',
              },
            },
          })
        : Response.json({ data: { documents: [summary] } });
    expect(await listDocuments(p())).toEqual([summary]);
    const doc = await getDocument({ ...p(), documentReference: 'r1' });
    expect(doc.proof.status).toBe('active');
    expect(doc.issuingCountry).toBeUndefined();
  });
});

describe.each([
  ['memory', () => memoryTransactionStore()],
  ['sqlite (bun:sqlite)', () => sqliteTransactionStore(new Database(':memory:'))],
])('%s transaction store', (_name, make: () => TransactionStore) => {
  test('keeps transactions per session, consumes once, discards and prunes', async () => {
    const store = make();
    const a = createTransaction({ sessionId: 's1', redirectUri: 'http://localhost/cb', clock });
    clock.advance(60_000);
    const b = createTransaction({
      sessionId: 's1',
      redirectUri: 'http://localhost/cb',
      display: 'popup',
      returnTo: '/me',
      maxAge: 300,
      prompt: 'login',
      claims: '{"id_token":{"sub":{"value":"s"}}}',
      clock,
    });
    const c = createTransaction({ sessionId: 's2', redirectUri: 'http://localhost/cb', clock });
    for (const t of [a, b, c]) await store.save(t);
    expect((await store.findBySession('s1')).map((t) => t.id).sort()).toEqual([a.id, b.id].sort());
    expect((await store.findBySession('s1')).find((t) => t.id === b.id)).toEqual(b);
    expect(await store.markConsumed(a.id)).toBe(true);
    expect(await store.markConsumed(a.id)).toBe(false);
    expect((await store.findBySession('s1')).find((t) => t.id === a.id)!.consumed).toBe(true);
    await store.discard(a.id);
    expect(await store.markConsumed(a.id)).toBe(false);
    await store.prune(new Date(Date.parse(b.createdAt)));
    expect((await store.findBySession('s1')).map((t) => t.id)).toEqual([b.id]);
    expect((await store.findBySession('s2')).length).toBe(1);
  });
});

test('the SQLite store adds max_age, prompt and claims to a table an earlier SDK made, and keeps its rows', async () => {
  const db = new Database(':memory:');
  db.run(`CREATE TABLE verity_transactions (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, state TEXT NOT NULL,
    nonce TEXT NOT NULL, code_verifier TEXT NOT NULL, redirect_uri TEXT NOT NULL, created_at TEXT NOT NULL,
    consumed INTEGER NOT NULL DEFAULT 0, display TEXT NOT NULL, return_to TEXT)`);
  db.run(`INSERT INTO verity_transactions VALUES ('old', 's1', 'st', 'n', '${'v'.repeat(43)}', 'http://localhost/cb',
    '2026-06-01T12:00:00.000Z', 0, 'page', NULL)`);
  const store = sqliteTransactionStore(db);
  expect((await store.findBySession('s1')).map((t) => [t.id, t.maxAge])).toEqual([['old', undefined]]);
  const t = createTransaction({
    sessionId: 's1',
    redirectUri: 'http://localhost/cb',
    maxAge: 60,
    prompt: 'login',
    claims: '{}',
    clock,
  });
  await store.save(t);
  expect((await store.findBySession('s1')).find((x) => x.id === t.id)).toEqual(t);
});

test('the SQLite store works with better-sqlite3 under Node too', async () => {
  // better-sqlite3 is a Node addon: bundle the SDK for Node and drive the store from a node process.
  const { dir, cleanup } = tempDir('sdk-node');
  try {
    const built = await Bun.build({
      entrypoints: [join(import.meta.dir, '../../src/sdk/index.ts')],
      target: 'node',
      outdir: dir,
    });
    expect(built.success).toBe(true);
    const script = join(dir, 'check.mjs');
    await Bun.write(
      script,
      `import { createRequire } from 'node:module';
       import { createTransaction, sqliteTransactionStore } from './index.js';
       const Database = createRequire(${JSON.stringify(join(import.meta.dir, '../../package.json'))})('better-sqlite3');
       const store = sqliteTransactionStore(new Database(':memory:'));
       const t = createTransaction({ sessionId: 's', redirectUri: 'http://localhost/cb' });
       store.save(t);
       const found = store.findBySession('s');
       console.log(JSON.stringify({ same: JSON.stringify(found) === JSON.stringify([t]), first: store.markConsumed(t.id), second: store.markConsumed(t.id) }));`,
    );
    const proc = Bun.spawnSync(['node', script]);
    expect(proc.stderr.toString()).toBe('');
    expect(JSON.parse(proc.stdout.toString())).toEqual({ same: true, first: true, second: false });
  } finally {
    cleanup();
  }
});
