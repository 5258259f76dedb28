import { afterEach, describe, expect, test } from 'bun:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { attestationReference } from '../../src/documents/reference.ts';
import { setDocumentSharing } from '../../src/identity/account/account.ts';
import { importPersons } from '../../src/persons/import.ts';
import { createTestApp, type TestApp } from '../helpers/apps.ts';
import { cli } from '../helpers/cli.ts';
import { type TestContext, testContext, testToml } from '../helpers/context.ts';
import { inProcess, REDIRECT } from '../oauth/fixtures.ts';
import { jsonl, record } from '../persons/fixtures.ts';
import { bearer, issueToken, setDocumentPolicy } from '../userinfo/fixtures.ts';

let ctx: TestContext;
afterEach(() => ctx?.cleanup());

const BEN = 'psn_sandbox_ben';
/** Ben's documents as a consent without a session holds them (the test tokens' own). */
const BENS = { personId: BEN, sessionIdHash: null };
const ID_CARD = 'doc_sandbox_ben_id_card_fr';
const PASSPORT = 'doc_sandbox_ben_passport_fr';
const ALL_DOC_SCOPES = [
  'identity_documents',
  'document_type',
  'document_issuing_country',
  'document_expiry_date',
  'document_validity',
  'document_verified',
  'document_verified_at',
  'document_number_masked',
];

async function setup(scopes = ALL_DOC_SCOPES, opts: { name?: string } = {}) {
  const app = await createTestApp(ctx, {
    type: 'confidential',
    redirectUris: [REDIRECT],
    scopes: [...scopes, 'email'],
    name: opts.name,
  });
  setDocumentPolicy(ctx, app, ['passport', 'id_card'], ['FR', 'DE']);
  return app;
}

const fresh = async () => {
  ctx = await testContext();
};

async function token(app: TestApp, scopes = ALL_DOC_SCOPES, personId = BEN) {
  return (await issueToken(ctx, app, { scopes, personId })).accessToken;
}

async function list(tok: string) {
  const res = await inProcess(ctx)('/v1/userinfo/identity-documents', bearer(tok));
  return { status: res.status, body: (await res.json()) as any };
}

async function detail(tok: string, ref: string) {
  const res = await inProcess(ctx)(`/v1/userinfo/identity-documents/${encodeURIComponent(ref)}`, bearer(tok));
  return { status: res.status, body: (await res.json()) as any, headers: res.headers };
}

const names = async (tok: string) =>
  (await list(tok)).body.data.documents.map((d: { displayName: string }) => d.displayName);

async function expectNotFound(tok: string, ref: string) {
  const r = await detail(tok, ref);
  expect(r.status).toBe(404);
  expect(r.body.error.code).toBe('IDENTITY_DOCUMENT_NOT_FOUND');
}

describe('list', () => {
  test('active, verified, shared documents within the policy; an expired one is listed and says so', async () => {
    await fresh();
    const app = await setup();
    const tok = await token(app);
    const r = await list(tok);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual(['data']);
    const [card, passport] = r.body.data.documents;
    expect(card).toEqual({
      documentReference: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      displayName: 'French identity card',
      documentType: 'id_card',
      issuingCountry: 'FR',
      validityStatus: 'valid',
      verified: true,
      verifiedAt: '2025-09-15T09:30:00.000Z',
    });
    expect(passport).toMatchObject({ documentType: 'passport', validityStatus: 'expired' });
    // The summary never carries detail fields.
    expect('expiryDate' in card || 'maskedDocumentNumber' in card || 'proof' in card).toBe(false);
  });

  test('only reference and name without document_* scopes', async () => {
    await fresh();
    const app = await setup(['identity_documents']);
    const r = await list(await token(app, ['identity_documents']));
    for (const d of r.body.data.documents)
      expect(Object.keys(d).sort()).toEqual(['displayName', 'documentReference']);
  });

  test('the application policy changes the list on the next request', async () => {
    await fresh();
    const app = await setup();
    const tok = await token(app);
    expect(await names(tok)).toEqual(['French identity card', 'French passport']);
    setDocumentPolicy(ctx, app, ['passport'], ['FR']);
    expect(await names(tok)).toEqual(['French passport']);
    setDocumentPolicy(ctx, app, ['passport', 'id_card'], ['DE']);
    expect(await names(tok)).toEqual([]);
    setDocumentPolicy(ctx, app, [], []);
    expect(await names(tok)).toEqual([]);
  });

  test("the person's sharing switch, a disabled or an unverified document take it out of the list", async () => {
    await fresh();
    const app = await setup();
    const tok = await token(app);
    setDocumentSharing(ctx, BENS, PASSPORT, false);
    expect(await names(tok)).toEqual(['French identity card']);
    setDocumentSharing(ctx, BENS, PASSPORT, true);
    expect(await names(tok)).toEqual(['French identity card', 'French passport']);
    ctx.db.sql.prepare("UPDATE identity_documents SET status = 'disabled' WHERE id = ?").run(ID_CARD);
    expect(await names(tok)).toEqual(['French passport']);
    ctx.db.sql.prepare('UPDATE identity_documents SET verified = 0 WHERE id = ?').run(PASSPORT);
    expect(await names(tok)).toEqual([]);
  });

  test("a person cannot switch someone else's document", async () => {
    await fresh();
    expect(() =>
      setDocumentSharing(ctx, { personId: 'psn_sandbox_ada', sessionIdHash: null }, PASSPORT, false),
    ).toThrow();
  });
});

describe('detail', () => {
  test('all approved fields, the masked number keeping its last 3 characters, and the proof', async () => {
    await fresh();
    const app = await setup();
    const tok = await token(app);
    const ref = (await list(tok)).body.data.documents[0].documentReference;
    const r = await detail(tok, ref);
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.body.data).toEqual({
      documentReference: ref,
      displayName: 'French identity card',
      documentType: 'id_card',
      issuingCountry: 'FR',
      validityStatus: 'valid',
      verified: true,
      verifiedAt: '2025-09-15T09:30:00.000Z',
      expiryDate: '2032-08-31',
      maskedDocumentNumber: '******FW4',
      proof: {
        type: 'verity_attestation_ref',
        attestationId: await attestationReference(ctx, app.applicationId, 'att_sandbox_ben_id_card_fr'),
        schemaVersion: '1',
        status: 'active',
        proofHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      },
    });
    expect(JSON.stringify(r.body)).not.toContain('X4RTBPFW4');
  });

  test('without document_* scopes: reference, name and proof only', async () => {
    await fresh();
    const app = await setup(['identity_documents']);
    const tok = await token(app, ['identity_documents']);
    const ref = (await list(tok)).body.data.documents[0].documentReference;
    expect(Object.keys((await detail(tok, ref)).body.data).sort()).toEqual([
      'displayName',
      'documentReference',
      'proof',
    ]);
  });

  test('the display name tells no more than the approved type and country scopes', async () => {
    await fresh();
    const shown = async (scopes: string[]) => {
      const tok = await token(await setup(scopes), scopes);
      return (await list(tok)).body.data.documents.map((d: { displayName: string }) => d.displayName).sort();
    };
    expect(await shown(['identity_documents'])).toEqual(['Identity document', 'Identity document']);
    expect(await shown(['identity_documents', 'document_issuing_country'])).toEqual([
      'Identity document',
      'Identity document',
    ]);
    expect(await shown(['identity_documents', 'document_type'])).toEqual(['Identity card', 'Passport']);
    expect(await shown(['identity_documents', 'document_type', 'document_issuing_country'])).toEqual([
      'French identity card',
      'French passport',
    ]);
  });

  test('the proof hash and attestation id are keyed: not plain, and different per application', async () => {
    await fresh();
    const a = await setup();
    const b = await setup();
    const ta = await token(a);
    const tb = await token(b);
    const ha = (await detail(ta, (await list(ta)).body.data.documents[0].documentReference)).body.data.proof;
    const hb = (await detail(tb, (await list(tb)).body.data.documents[0].documentReference)).body.data.proof;
    // One random id per document, the same to every application, would link the person across them.
    expect(ha.attestationId).not.toBe(hb.attestationId);
    expect(ha.attestationId).toMatch(/^att_[A-Za-z0-9_-]{43}$/);
    expect(JSON.stringify([ha, hb])).not.toContain('att_sandbox_ben');
    expect(ha.proofHash).not.toBe(hb.proofHash);
    const plain = new Bun.CryptoHasher('sha256').update('X4RTBPFW4').digest('hex');
    expect(ha.proofHash).not.toBe(plain);
  });
});

describe('references', () => {
  test('two applications see different references for one document; each resolves only for its own', async () => {
    await fresh();
    const a = await setup(ALL_DOC_SCOPES, { name: 'A' });
    const b = await setup(ALL_DOC_SCOPES, { name: 'B' });
    const ta = await token(a);
    const tb = await token(b);
    const refA = (await list(ta)).body.data.documents[0].documentReference;
    const refB = (await list(tb)).body.data.documents[0].documentReference;
    expect(refA).not.toBe(refB);
    // Stable: the same reference on every read.
    expect((await list(ta)).body.data.documents[0].documentReference).toBe(refA);
    expect((await detail(ta, refA)).status).toBe(200);
    expect((await detail(tb, refB)).status).toBe(200);
    await expectNotFound(ta, refB);
    await expectNotFound(tb, refA);
  });

  test("every 404: unknown, malformed, another person's, no longer eligible, disabled, no longer shared", async () => {
    await fresh();
    const app = await setup();
    const ben = await token(app);
    const ada = await token(app, ALL_DOC_SCOPES, 'psn_sandbox_ada');
    const [cardRef, passportRef] = (await list(ben)).body.data.documents.map(
      (d: { documentReference: string }) => d.documentReference,
    );
    await expectNotFound(ben, 'A'.repeat(43));
    await expectNotFound(ben, 'not a reference');
    await expectNotFound(ben, `${cardRef}x`);
    await expectNotFound(ben, ID_CARD);
    // Ben's reference presented with Ada's token (same application).
    await expectNotFound(ada, cardRef);

    setDocumentPolicy(ctx, app, ['passport'], ['FR']);
    await expectNotFound(ben, cardRef);
    expect((await detail(ben, passportRef)).status).toBe(200);
    setDocumentPolicy(ctx, app, ['passport', 'id_card'], ['FR']);
    expect((await detail(ben, cardRef)).status).toBe(200);

    setDocumentSharing(ctx, BENS, ID_CARD, false);
    await expectNotFound(ben, cardRef);
    setDocumentSharing(ctx, BENS, ID_CARD, true);
    expect((await detail(ben, cardRef)).status).toBe(200);

    ctx.db.sql.prepare("UPDATE identity_documents SET status = 'disabled' WHERE id = ?").run(ID_CARD);
    await expectNotFound(ben, cardRef);
  });
});

describe('scope and authorization', () => {
  test('403 insufficient_scope without identity_documents, on the list and the detail', async () => {
    await fresh();
    const app = await setup();
    const withScope = await token(app);
    const ref = (await list(withScope)).body.data.documents[0].documentReference;
    const without = await token(app, ['email', 'document_type']);
    const l = await list(without);
    expect(l.status).toBe(403);
    expect(l.body.error.code).toBe('insufficient_scope');
    const d = await detail(without, ref);
    expect(d.status).toBe(403);
    expect(d.body.error.code).toBe('insufficient_scope');
    expect(d.headers.get('www-authenticate')).toBe('Bearer error="insufficient_scope"');
  });

  test('a revoked consent ends document access at once', async () => {
    await fresh();
    const app = await setup();
    const { accessToken, consentId } = await issueToken(ctx, app, { scopes: ALL_DOC_SCOPES, personId: BEN });
    const ref = (await list(accessToken)).body.data.documents[0].documentReference;
    ctx.db.sql.prepare("UPDATE consents SET status = 'revoked' WHERE id = ?").run(consentId);
    expect((await list(accessToken)).status).toBe(401);
    expect((await detail(accessToken, ref)).status).toBe(401);
  });
});

describe('production and the full number', () => {
  async function production(approved: boolean) {
    await fresh();
    await importPersons(ctx, jsonl(record()));
    const personId = (
      ctx.db.sql.prepare("SELECT id FROM persons WHERE external_id = 'ext-1'").get() as { id: string }
    ).id;
    const app = await createTestApp(ctx, {
      type: 'confidential',
      redirectUris: [REDIRECT],
      scopes: [...ALL_DOC_SCOPES, 'document_number_full'],
      environment: 'production',
    });
    setDocumentPolicy(ctx, app, ['passport'], ['DE']);
    ctx.db.sql
      .prepare('UPDATE applications SET full_number_approved = 1 WHERE id = ?')
      .run(app.applicationId);
    const tok = (
      await issueToken(ctx, app, { scopes: [...ALL_DOC_SCOPES, 'document_number_full'], personId })
    ).accessToken;
    if (!approved)
      ctx.db.sql
        .prepare('UPDATE applications SET full_number_approved = 0 WHERE id = ?')
        .run(app.applicationId);
    return tok;
  }

  test('with document_number_full and the approval flag, the detail holds the full number', async () => {
    const tok = await production(true);
    const ref = (await list(tok)).body.data.documents[0].documentReference;
    const d = (await detail(tok, ref)).body.data;
    expect(d.documentNumber).toBe('C01X00T47');
    expect(d.maskedDocumentNumber).toBe('******T47');
    // Never in the list.
    expect('documentNumber' in (await list(tok)).body.data.documents[0]).toBe(false);
    // Nor in the proof hash.
    expect(d.proof.proofHash).not.toContain('C01X00T47');
  });

  test('approval withdrawn after the token was issued: the number is gone on the next read', async () => {
    const tok = await production(false);
    const ref = (await list(tok)).body.data.documents[0].documentReference;
    expect('documentNumber' in (await detail(tok, ref)).body.data).toBe(false);
  });
});

test('verity apps update --document-types/--document-countries sets the policy the endpoints enforce', async () => {
  await fresh();
  const config = join(ctx.dir, 'verity.toml');
  writeFileSync(config, testToml(ctx.dir));
  const created = await cli(
    'apps',
    'create',
    '--name',
    'Policy App',
    '--type',
    'confidential',
    '--redirect-uri',
    REDIRECT,
    '--scopes',
    ALL_DOC_SCOPES.join(' '),
    '--json',
    '--config',
    config,
  );
  expect(created.code).toBe(0);
  const { applicationId, clientId, clientSecret } = created.json;
  const environmentId = (
    ctx.db.sql.prepare('SELECT id FROM application_environments WHERE client_id = ?').get(clientId) as {
      id: string;
    }
  ).id;
  const app: TestApp = { applicationId, environmentId, clientId, clientSecret };
  const tok = await token(app);
  // Registration default: every type and country.
  expect(await names(tok)).toEqual(['French identity card', 'French passport']);

  const update = (...flags: string[]) =>
    cli('apps', 'update', applicationId, ...flags, '--json', '--config', config);
  expect((await update('--document-types', 'passport')).code).toBe(0);
  expect(await names(tok)).toEqual(['French passport']);
  expect((await update('--document-types', 'all', '--document-countries', 'de nl')).code).toBe(0);
  expect(await names(tok)).toEqual([]);
  expect((await update('--document-countries', 'FR')).code).toBe(0);
  expect(await names(tok)).toEqual(['French identity card', 'French passport']);
  expect((await update('--document-types', 'bogus')).code).not.toBe(0);
});
