import { afterEach, expect, test } from 'bun:test';
import { revokeAccessTokensOfConsent } from '../../src/auth/access-token.store.ts';
import { databaseTarget, openDb } from '../../src/db/open.ts';
import { createPersonStore } from '../../src/persons/person.store.ts';
import { unix } from '../../src/platform/clock.ts';
import { createTestApp, type TestApp } from '../helpers/apps.ts';
import { type TestContext, testContext } from '../helpers/context.ts';
import { nextTurn } from '../helpers/wait.ts';
import { inProcess, REDIRECT } from '../oauth/fixtures.ts';
import { bearer, issueToken } from './fixtures.ts';

let ctx: TestContext;
let app: TestApp;
afterEach(() => ctx?.cleanup());

async function setup(extra = '') {
  ctx = await testContext({ extra });
  app = await createTestApp(ctx, {
    type: 'confidential',
    redirectUris: [REDIRECT],
    scopes: 'openid email identity_documents',
  });
  return issueToken(ctx, app, { scopes: ['openid', 'email'], personId: 'psn_sandbox_ada' });
}

const PATHS = ['/v1/userinfo', '/v1/userinfo/identity-documents', '/v1/userinfo/identity-documents/abc'];

async function call(path: string, init: RequestInit = {}) {
  const res = await inProcess(ctx)(path, init);
  const body = (await res.json()) as { error?: { code: string; message: string; requestId: string } };
  return { res, body };
}

async function expectInvalid(init: RequestInit, path = '/v1/userinfo') {
  const { res, body } = await call(path, init);
  expect(res.status).toBe(401);
  expect(res.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
  expect(body.error!.code).toBe('invalid_token');
  expect(body.error!.requestId).toBe(res.headers.get('x-request-id')!);
}

test('no token: 401 with a bare Bearer challenge, on every resource endpoint', async () => {
  await setup();
  for (const path of PATHS) {
    const { res, body } = await call(path);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="verity"');
    expect(Object.keys(body.error!).sort()).toEqual(['code', 'message', 'requestId']);
  }
  // Another scheme is not a bearer token either.
  const basic = await call('/v1/userinfo', { headers: { Authorization: 'Basic dXNlcjpwYXNz' } });
  expect(basic.res.status).toBe(401);
});

test('unknown, malformed, expired and revoked tokens are invalid_token', async () => {
  const { accessToken, consentId } = await setup();
  await expectInvalid(bearer(`at_${'A'.repeat(43)}`));
  await expectInvalid(bearer(`${accessToken}x`));
  // The id of a real token with another secret: found by its id, refused by its hash.
  await expectInvalid(bearer(`${accessToken.slice(0, 35)}${'A'.repeat(43)}`));
  await expectInvalid({ headers: { Authorization: 'Bearer' } });
  await expectInvalid({ headers: { Authorization: `Bearer ${accessToken} extra` } });
  for (const path of PATHS) await expectInvalid(bearer('not-a-token'), path);

  // Revoked on its own (as a replayed code revokes it), consent still active.
  revokeAccessTokensOfConsent(ctx.db, consentId, unix(ctx.clock));
  await expectInvalid(bearer(accessToken));
});

test('a token works until its 15 minutes are up, not a second longer', async () => {
  const { accessToken } = await setup();
  ctx.clock.advance(15 * 60_000 - 1000);
  expect((await call('/v1/userinfo', bearer(accessToken))).res.status).toBe(200);
  ctx.clock.advance(1000);
  await expectInvalid(bearer(accessToken));
});

test('an ID token, or any JWT, presented as an access token is refused', async () => {
  const { idToken } = await setup();
  expect(idToken).toBeString();
  await expectInvalid(bearer(idToken!));
  const jwt = `${btoa('{"alg":"none"}')}.${btoa('{"sub":"x"}')}.`.replace(/=/g, '');
  await expectInvalid(bearer(jwt));
});

test('a consent that ended refuses the token, whatever the token says', async () => {
  const { accessToken, consentId } = await setup();
  // Raw SQL: flips the stored status back and forth, which no domain path does (an ended consent stays ended).
  for (const status of ['revoked', 'expired']) {
    ctx.db.sql.prepare('UPDATE consents SET status = ? WHERE id = ?').run(status, consentId);
    await expectInvalid(bearer(accessToken));
  }
  ctx.db.sql.prepare("UPDATE consents SET status = 'active' WHERE id = ?").run(consentId);
  expect((await call('/v1/userinfo', bearer(accessToken))).res.status).toBe(200);
  // Still marked active, but past its own expiry (the cleanup job has not run yet): ended all the same.
  const now = unix(ctx.clock);
  ctx.db.sql.prepare('UPDATE consents SET expires_at = ? WHERE id = ?').run(now, consentId);
  await expectInvalid(bearer(accessToken));
  const ended = await call('/v1/userinfo', bearer(accessToken));
  expect(ended.body.error!.message).toBe('The consent behind this access token has ended.');
  ctx.db.sql.prepare('UPDATE consents SET expires_at = ? WHERE id = ?').run(now + 1, consentId);
  expect((await call('/v1/userinfo', bearer(accessToken))).res.status).toBe(200);
  // A disabled person's tokens stop too.
  createPersonStore(ctx.db).setStatus('psn_sandbox_ada', 'disabled', unix(ctx.clock));
  await expectInvalid(bearer(accessToken));
});

test('a token in the query string, or sent two ways, is 400 invalid_request', async () => {
  const { accessToken } = await setup();
  for (const path of PATHS) {
    const q = await call(`${path}?access_token=${accessToken}`);
    expect(q.res.status).toBe(400);
    expect(q.body.error!.code).toBe('invalid_request');
    // Also together with a valid header: still refused.
    const both = await call(`${path}?access_token=${accessToken}`, bearer(accessToken));
    expect(both.res.status).toBe(400);
  }
  const headerAndBody = await call('/v1/userinfo', {
    method: 'POST',
    headers: { Authorization: `Bearer ${accessToken}`, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: `access_token=${accessToken}`,
  });
  expect(headerAndBody.res.status).toBe(400);
  expect(headerAndBody.body.error!.code).toBe('invalid_request');
  const twiceInBody = await call('/v1/userinfo', {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: `access_token=${accessToken}&access_token=${accessToken}`,
  });
  expect(twiceInBody.res.status).toBe(400);
});

test('responses are not cacheable and carry the rate-limit headers', async () => {
  const { accessToken } = await setup();
  const { res } = await call('/v1/userinfo', bearer(accessToken));
  expect(res.status).toBe(200);
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect(res.headers.get('x-ratelimit-limit')).toBe('600');
  expect(res.headers.get('x-ratelimit-remaining')).toBe('599');
});

test('the limit is per token: one token over its limit gets 429, another token is unaffected', async () => {
  const first = await setup('[rate_limits.userinfo]\nrequests = 3');
  const second = await issueToken(ctx, app, { scopes: ['email'], personId: 'psn_sandbox_ben' });
  for (let i = 0; i < 3; i++)
    expect((await call('/v1/userinfo', bearer(first.accessToken))).res.status).toBe(200);
  const over = await call('/v1/userinfo/identity-documents', bearer(first.accessToken));
  expect(over.res.status).toBe(429);
  expect(over.body.error!.code).toBe('RATE_LIMIT_EXCEEDED');
  expect(Number(over.res.headers.get('retry-after'))).toBeGreaterThan(0);
  expect((await call('/v1/userinfo', bearer(second.accessToken))).res.status).toBe(200);
  ctx.clock.advance(60_000);
  expect((await call('/v1/userinfo', bearer(first.accessToken))).res.status).toBe(200);
});

test('requests without a usable token are counted against the client address and get the headers', async () => {
  await setup('[rate_limits.userinfo]\nrequests = 3');
  const attempts: RequestInit[] = [
    {},
    { headers: { Authorization: 'Bearer' } },
    { headers: { Authorization: 'Basic eDp5' } },
  ];
  for (const [i, init] of attempts.entries()) {
    const { res } = await call('/v1/userinfo', init);
    expect(res.status).toBe(401);
    expect(res.headers.get('x-ratelimit-limit')).toBe('3');
    expect(res.headers.get('x-ratelimit-remaining')).toBe(String(2 - i));
  }
  const query = await call('/v1/userinfo?access_token=at_x');
  expect(query.res.status).toBe(429);
  expect(query.body.error!.code).toBe('RATE_LIMIT_EXCEEDED');
});

test('made-up tokens count against the client address, not a bucket each', async () => {
  const { accessToken } = await setup('[rate_limits.userinfo]\nrequests = 3');
  const buckets = () =>
    ctx.db.sql
      .prepare<{ key: string }>("SELECT key FROM rate_limit_buckets WHERE key LIKE 'userinfo:%'")
      .all();
  for (let i = 0; i < 3; i++) {
    const { res } = await call('/v1/userinfo', bearer(`at_${String(i).repeat(43)}`));
    expect(res.status).toBe(401);
    expect(res.headers.get('x-ratelimit-remaining')).toBe(String(2 - i));
  }
  const fresh = await call('/v1/userinfo', bearer(`at_${'9'.repeat(43)}`));
  expect(fresh.res.status).toBe(429);
  expect(buckets()).toEqual([{ key: 'userinfo:ip:198.51.100.7' }]);
  // A valid token still has its own bucket, whatever its address has spent.
  const ok = await call('/v1/userinfo', bearer(accessToken));
  expect(ok.res.status).toBe(200);
  expect(ok.res.headers.get('x-ratelimit-remaining')).toBe('2');
});

test('the token is stored only as its hash', async () => {
  const { accessToken } = await setup();
  const rows = ctx.db.sql.prepare<{ token_hash: string }>('SELECT token_hash FROM access_tokens').all();
  expect(rows.some((r) => r.token_hash.includes(accessToken))).toBe(false);
});

test('a claim that stops being available is left out of the next answer, whoever changed it', async () => {
  const { accessToken } = await setup();
  const emailOf = async () =>
    ((await call('/v1/userinfo', bearer(accessToken))).body as { email?: string }).email;
  expect(await emailOf()).toBeDefined();
  // Another process (the CLI) removes the person's emails; the person's data may be held in memory.
  const other = await openDb(databaseTarget(ctx.config));
  other.sql.prepare("DELETE FROM person_emails WHERE person_id = 'psn_sandbox_ada'").run();
  other.close();
  await nextTurn();
  const { res, body } = await call('/v1/userinfo', bearer(accessToken));
  expect(res.status).toBe(200);
  expect(body).not.toHaveProperty('email');
  expect(body).not.toHaveProperty('email_verified');
});
