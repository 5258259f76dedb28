import { afterEach, expect, test } from 'bun:test';
import { createLocalJWKSet, type JWK, jwtVerify } from 'jose';
import { rotateDue } from '../../src/keys/rotation.ts';
import { DOCUMENT_PROOF_TYP } from '../../src/sdk/document-proof.ts';
import { createTestApp } from '../helpers/apps.ts';
import { type TestContext, testContext } from '../helpers/context.ts';
import { inProcess, REDIRECT } from '../oauth/fixtures.ts';
import { bearer, issueToken, setDocumentPolicy } from '../userinfo/fixtures.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

let ctx: TestContext;
afterEach(() => ctx?.cleanup());

const kids = async () => (JSON.parse(await ctx.keys.jwksBody()) as { keys: JWK[] }).keys.map((k) => k.kid);

/** Verified as a relying party does: against the JWKS published now, with 60 s of skew. */
async function verifies(jwt: string, clientId: string): Promise<boolean> {
  const set = createLocalJWKSet(JSON.parse(await ctx.keys.jwksBody()) as { keys: JWK[] });
  try {
    await jwtVerify(jwt, set, {
      audience: clientId,
      typ: DOCUMENT_PROOF_TYP,
      currentDate: ctx.clock.now(),
      clockTolerance: 60,
    });
    return true;
  } catch {
    return false;
  }
}

test('a proof signed just before a rotation verifies against the JWKS until its exp; then its key is dropped', async () => {
  ctx = await testContext({
    extra: 'rotate_every = "30d"\npublish_ahead = "1h"\n[assurance]\nproof_ttl = "30d"',
  });
  const start = ctx.clock.now().getTime();
  const app = await createTestApp(ctx, {
    type: 'confidential',
    redirectUris: [REDIRECT],
    scopes: ['identity_documents'],
  });
  setDocumentPolicy(ctx, app, ['id_card'], ['FR']);
  const a = ctx.keys.store.active('RS256')!.kid;

  // One second before the rotation, A (the RS256 key, which signs proofs) signs a proof.
  ctx.clock.set(start + 30 * DAY - HOUR);
  await rotateDue(ctx);
  const b = ctx.keys.store.nextSet().find((k) => k.alg === 'RS256')!.kid;
  ctx.clock.set(start + 30 * DAY - 1000);
  const { accessToken } = await issueToken(ctx, app, {
    scopes: ['identity_documents'],
    personId: 'psn_sandbox_ben',
  });
  const list = (await (
    await inProcess(ctx)('/v1/userinfo/identity-documents', bearer(accessToken))
  ).json()) as any;
  const ref = list.data.documents[0].documentReference as string;
  const res = await inProcess(ctx)(`/v1/userinfo/identity-documents/${ref}/proof`, bearer(accessToken));
  const proof = await res.text();
  const issuedAt = ctx.clock.now().getTime();
  expect(res.status).toBe(200);

  ctx.clock.set(start + 30 * DAY);
  const rotated = await rotateDue(ctx);
  expect(rotated.promoted).toContain(b);
  expect(rotated.retired).toContain(a);
  expect(ctx.keys.store.get(a)!.remove_after).toBe((start + 60 * DAY) / 1000 + 60);

  // A is retired but stays published through the proof's whole life (exp + 60 s of skew)...
  ctx.clock.set(issuedAt + 30 * DAY + MIN - 1000);
  await rotateDue(ctx);
  expect(await kids()).toContain(a);
  expect(await verifies(proof, app.clientId)).toBe(true);

  // ...and leaves the JWKS once every proof it signed has expired.
  ctx.clock.set(start + 60 * DAY + MIN);
  expect((await rotateDue(ctx)).removed).toContain(a);
  expect(await kids()).not.toContain(a);
  expect(await verifies(proof, app.clientId)).toBe(false);
});

test('with proof_ttl longer than rotate_every, a retired key outlives its successor’s term', async () => {
  ctx = await testContext({
    extra: 'rotate_every = "7d"\npublish_ahead = "1h"\n[assurance]\nproof_ttl = "30d"',
  });
  const start = ctx.clock.now().getTime();
  let most = 0;
  for (let t = 0; t <= 60 * DAY; t += HOUR) {
    ctx.clock.set(start + t);
    await rotateDue(ctx);
    most = Math.max(most, (await kids()).length);
  }
  // Each retired key stays 30 d + 60 s, so up to five of them (retired on days 7 to 35, on day 37)
  // beside the active key: floor(proof_ttl / rotate_every) + 2 of each of the three algorithms, the
  // bound docs/reference.md gives.
  expect(most).toBe(6 * 3);
}, 30_000);
