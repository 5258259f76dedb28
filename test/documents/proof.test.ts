import { afterEach, describe, expect, test } from 'bun:test';
import { createLocalJWKSet, decodeProtectedHeader, type JWK, jwtVerify } from 'jose';
import { revokeConsent } from '../../src/consent/lifecycle.ts';
import { setDocumentSharing } from '../../src/identity/account/account.ts';
import { subjectFor } from '../../src/keys/pairwise.ts';
import { importPersons } from '../../src/persons/import.ts';
import { verifiedClaimsProblems } from '../assurance/ida-schema.ts';
import { createTestApp, type TestApp } from '../helpers/apps.ts';
import { type TestContext, testContext } from '../helpers/context.ts';
import { inProcess, REDIRECT } from '../oauth/fixtures.ts';
import { jsonl, record } from '../persons/fixtures.ts';
import { bearer, issueToken, setDocumentPolicy } from '../userinfo/fixtures.ts';

let ctx: TestContext;
afterEach(() => ctx?.cleanup());

const BEN = 'psn_sandbox_ben';
/** Ben's documents as a consent without a session holds them (the test tokens' own). */
const BENS = { personId: BEN, sessionIdHash: null };
const ID_CARD = 'doc_sandbox_ben_id_card_fr';
const DAY = 86_400;
const SCOPES = ['identity_documents', 'document_type', 'document_expiry_date', 'document_number_masked'];

const VERIFIED = [...SCOPES, 'identity_verified', 'identity_assurance_level'];

async function setup(extra = '') {
  ctx = await testContext({ extra });
  const app = await createTestApp(ctx, { type: 'confidential', redirectUris: [REDIRECT], scopes: VERIFIED });
  setDocumentPolicy(ctx, app, ['passport', 'id_card'], ['FR']);
  return app;
}

const get = (path: string, tok: string) => inProcess(ctx)(path, bearer(tok));
const docPath = (ref: string) => `/v1/userinfo/identity-documents/${encodeURIComponent(ref)}`;

async function firstReference(tok: string): Promise<string> {
  const body = (await (await get('/v1/userinfo/identity-documents', tok)).json()) as any;
  return body.data.documents[0].documentReference;
}

async function verify(jwt: string, clientId: string) {
  const jwks = createLocalJWKSet(JSON.parse(await ctx.keys.jwksBody()) as { keys: JWK[] });
  return jwtVerify(jwt, jwks, {
    issuer: ctx.config.server.base_url,
    audience: clientId,
    typ: 'verity-document-proof+jwt',
    algorithms: ['RS256'],
    currentDate: ctx.clock.now(),
  });
}

const token = async (app: TestApp, scopes = SCOPES) => issueToken(ctx, app, { scopes, personId: BEN });

describe('GET …/identity-documents/:documentReference/proof', () => {
  test('an application/jwt signed with the active key, holding exactly the detail fields', async () => {
    const app = await setup();
    const { accessToken } = await token(app);
    const ref = await firstReference(accessToken);
    const res = await get(`${docPath(ref)}/proof`, accessToken);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/jwt');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const jwt = await res.text();

    const header = decodeProtectedHeader(jwt);
    expect(header).toEqual({
      alg: 'RS256',
      kid: ctx.keys.store.active()!.kid,
      typ: 'verity-document-proof+jwt',
    });
    const { payload } = await verify(jwt, app.clientId);
    const detail = ((await (await get(docPath(ref), accessToken)).json()) as any).data;
    const now = Math.floor(ctx.clock.now().getTime() / 1000);
    expect(payload).toEqual({
      iss: ctx.config.server.base_url,
      sub: await subjectFor(ctx, app.applicationId, BEN),
      aud: app.clientId,
      iat: now,
      exp: now + 30 * DAY,
      jti: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      document: detail,
    });
    // identity_verified was not approved: no verification data either.
    expect('verification' in payload).toBe(false);
    // The approved scopes decide the fields: nothing unapproved slips in.
    expect(Object.keys(detail).sort()).toEqual([
      'displayName',
      'documentReference',
      'documentType',
      'expiryDate',
      'maskedDocumentNumber',
      'proof',
    ]);
  });

  test('with identity_verified, the OIDC4IDA verification of this one document', async () => {
    const app = await setup();
    const { accessToken } = await token(app, VERIFIED);
    const ref = await firstReference(accessToken);
    const { payload } = await verify(
      await (await get(`${docPath(ref)}/proof`, accessToken)).text(),
      app.clientId,
    );
    const doc = payload.document as Record<string, string>;
    expect(doc.documentType).toBe('id_card');
    // Ben also has a passport the application may see: only the proven document is evidence.
    expect(payload.verification).toEqual({
      trust_framework: 'verity_sandbox',
      assurance_level: 'substantial',
      time: '2025-09-15T09:30:00.000Z',
      evidence: [
        {
          type: 'document',
          check_details: [{ check_method: 'vri' }],
          document_details: {
            type: 'idcard',
            document_number: doc.maskedDocumentNumber!,
            date_of_issuance: '2022-09-01',
            date_of_expiry: doc.expiryDate!,
          },
        },
      ],
    });
    expect(
      verifiedClaimsProblems({ verified_claims: { verification: payload.verification, claims: {} } }),
    ).toEqual([]);
  });

  test('in production, verification names [assurance] trust_framework, and is left out while it is empty', async () => {
    const proofIn = async (extra: string) => {
      ctx = await testContext({ extra });
      await importPersons(ctx, jsonl(record()));
      const personId = ctx.db.sql
        .prepare<{ id: string }>("SELECT id FROM persons WHERE external_id = 'ext-1'")
        .get()!.id;
      const app = await createTestApp(ctx, {
        type: 'confidential',
        redirectUris: [REDIRECT],
        scopes: VERIFIED,
        environment: 'production',
      });
      setDocumentPolicy(ctx, app, ['passport'], ['DE']);
      const { accessToken } = await issueToken(ctx, app, { scopes: VERIFIED, personId });
      const ref = await firstReference(accessToken);
      return (await verify(await (await get(`${docPath(ref)}/proof`, accessToken)).text(), app.clientId))
        .payload;
    };
    expect('verification' in (await proofIn(''))).toBe(false);
    ctx.cleanup();
    const framed = await proofIn('[assurance]\ntrust_framework = "de_aml"');
    expect(framed.verification).toMatchObject({
      trust_framework: 'de_aml',
      assurance_level: 'high',
      time: '2026-01-15T09:30:00.000Z',
      evidence: [{ type: 'document', document_details: { type: 'passport' } }],
    });
  });

  test('every proof has its own jti; proof_ttl sets exp', async () => {
    const app = await setup('[assurance]\nproof_ttl = "2h"');
    const { accessToken } = await token(app);
    const ref = await firstReference(accessToken);
    const a = await verify(await (await get(`${docPath(ref)}/proof`, accessToken)).text(), app.clientId);
    const b = await verify(await (await get(`${docPath(ref)}/proof`, accessToken)).text(), app.clientId);
    expect(a.payload.jti).not.toBe(b.payload.jti);
    expect(a.payload.exp! - a.payload.iat!).toBe(7200);
  });

  test('the detail route’s rules: 403 without identity_documents, 404 for what does not resolve, 401 without a token', async () => {
    const app = await setup();
    const { accessToken } = await token(app);
    const ref = await firstReference(accessToken);

    const without = (await token(app, ['document_type'])).accessToken;
    const forbidden = await get(`${docPath(ref)}/proof`, without);
    expect(forbidden.status).toBe(403);
    expect(((await forbidden.json()) as any).error.code).toBe('insufficient_scope');
    expect(forbidden.headers.get('www-authenticate')).toBe('Bearer error="insufficient_scope"');

    for (const bad of ['A'.repeat(43), 'not a reference', ID_CARD]) {
      const r = await get(`${docPath(bad)}/proof`, accessToken);
      expect(r.status).toBe(404);
      expect(((await r.json()) as any).error.code).toBe('IDENTITY_DOCUMENT_NOT_FOUND');
    }
    setDocumentSharing(ctx, BENS, ID_CARD, false);
    expect((await get(`${docPath(ref)}/proof`, accessToken)).status).toBe(404);
    setDocumentSharing(ctx, BENS, ID_CARD, true);

    const anonymous = await inProcess(ctx)(`${docPath(ref)}/proof`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer realm="verity"');
    expect((await get(`${docPath(ref)}/proof`, accessToken)).status).toBe(200);
  });

  test('a revoked consent stops new proofs at once; one issued before still verifies until exp', async () => {
    const app = await setup();
    const { accessToken, consentId } = await token(app);
    const ref = await firstReference(accessToken);
    const issued = await (await get(`${docPath(ref)}/proof`, accessToken)).text();

    await revokeConsent(ctx, consentId, 'revoked_by_person');
    const refused = await get(`${docPath(ref)}/proof`, accessToken);
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as any).error.code).toBe('invalid_token');

    ctx.clock.advance(30 * DAY * 1000 - 1000);
    expect((await verify(issued, app.clientId)).payload.document).toMatchObject({ documentReference: ref });
    ctx.clock.advance(1000);
    await expect(verify(issued, app.clientId)).rejects.toThrow('"exp" claim timestamp check failed');
  });

  test('CORS as for the detail: the token’s client’s web origin reads it, another origin is refused', async () => {
    ctx = await testContext();
    const spa = 'https://spa.example';
    const app = await createTestApp(ctx, {
      type: 'public',
      redirectUris: [REDIRECT],
      webOrigins: [spa],
      scopes: SCOPES,
    });
    setDocumentPolicy(ctx, app, ['id_card'], ['FR']);
    const { accessToken } = await token(app);
    const path = `${docPath(await firstReference(accessToken))}/proof`;
    const from = (origin: string) =>
      inProcess(ctx)(path, { headers: { Authorization: `Bearer ${accessToken}`, Origin: origin } });

    const ok = await from(spa);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe(spa);
    const other = await from('https://evil.example');
    expect(other.status).toBe(403);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    expect(((await other.json()) as any).error.code).toBe('ORIGIN_NOT_ALLOWED');
    const preflight = await inProcess(ctx)(path, {
      method: 'OPTIONS',
      headers: { Origin: spa, 'Access-Control-Request-Method': 'GET' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-methods')).toContain('GET');
  });

  test('counted in the same per-token bucket as the other documents routes', async () => {
    const app = await setup('[rate_limits.userinfo]\nrequests = 3');
    const { accessToken } = await token(app);
    const ref = await firstReference(accessToken);
    const first = await get(`${docPath(ref)}/proof`, accessToken);
    expect(first.headers.get('x-ratelimit-remaining')).toBe('1');
    expect((await get(docPath(ref), accessToken)).status).toBe(200);
    const over = await get(`${docPath(ref)}/proof`, accessToken);
    expect(over.status).toBe(429);
    expect(((await over.json()) as any).error.code).toBe('RATE_LIMIT_EXCEEDED');
  });
});
