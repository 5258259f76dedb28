import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { SCOPES, type Scope } from '../../src/capabilities/scopes.ts';
import { createDocumentStore } from '../../src/documents/document.store.ts';
import { documentReference } from '../../src/documents/reference.ts';
import { PERSONAS, type Persona } from '../../src/identity/personas.ts';
import { subjectFor } from '../../src/keys/pairwise.ts';
import { ageAt, claimsFor } from '../../src/oidc/claims.ts';
import { createPersonStore, releasablePerson } from '../../src/persons/person.store.ts';
import { createTestApp, type TestApp } from '../helpers/apps.ts';
import { type TestContext, testContext } from '../helpers/context.ts';
import { inProcess, REDIRECT } from '../oauth/fixtures.ts';
import { bearer, issueToken, setDocumentPolicy } from './fixtures.ts';

/**
 * The scope → claims table of DESIGN.md §5, written out independently of the implementation: for a
 * persona and one approved scope, exactly the claims (besides `sub`) that must appear. A claim whose
 * data the persona lacks is absent — never null, "" or false.
 */

const SEEDED_AT = Date.UTC(2026, 0, 1) / 1000;
const VERIFIED_AT = '2025-09-15T09:30:00.000Z';
// The test clock: 2026-06-01 12:00 UTC.
const AGES: Record<string, number> = { ada: 35, ben: 41, cleo: 28, dan: 16, eve: 46, finn: 32 };

type Expect = (p: Persona, ref: string) => Record<string, unknown>;

const primaryDoc = (p: Persona) => p.documents.find((d) => d.primary) ?? p.documents[0];
const doc =
  (fields: (d: Persona['documents'][number]) => Record<string, unknown>): Expect =>
  (p) => {
    const d = primaryDoc(p);
    // Only the approved fields: no display name (it names type and country), and the reference only
    // with identity_documents (see the all-scopes test).
    return d ? { document: fields(d) } : {};
  };
const some = <T>(list: T[], f: (l: T[]) => Record<string, unknown>) => (list.length ? f(list) : {});

const TABLE: Record<Scope, Expect> = {
  openid: () => ({}),
  profile: (p) => ({
    name: p.name,
    given_name: p.givenName,
    family_name: p.familyName,
    preferred_username: p.preferredUsername,
    locale: p.locale,
    updated_at: SEEDED_AT,
  }),
  email: (p) =>
    some(p.emails, (e) => ({
      email: e.find((x) => x.primary)!.email,
      email_verified: e.find((x) => x.primary)!.verified,
    })),
  emails: (p) => some(p.emails, (e) => ({ emails: e })),
  phone: (p) => some(p.phones, (l) => ({ phone_number: l[0]!.phone, phone_number_verified: l[0]!.verified })),
  phones: (p) =>
    some(p.phones, (l) => ({
      phone_numbers: l.map((x) => ({ phone_number: x.phone, verified: x.verified, primary: x.primary })),
    })),
  legal_name: (p) =>
    p.legalGivenName
      ? {
          legal_name: `${p.legalGivenName} ${p.legalFamilyName}`,
          legal_given_name: p.legalGivenName,
          legal_family_name: p.legalFamilyName,
        }
      : {},
  age: (p) => ({ age: AGES[p.key] }),
  age_over_18: (p) => ({ age_over_18: AGES[p.key]! >= 18 }),
  date_of_birth: (p) => ({ birthdate: p.birthdate }),
  nationality: (p) => some(p.nationalities, (n) => ({ nationalities: n })),
  identity_verified: (p) => ({ identity_verified: p.identityVerified }),
  identity_assurance_level: (p) => ({ identity_assurance_level: p.assuranceLevel }),
  liveness_verified: () => ({ liveness_verified: true }),
  face_match_verified: () => ({ face_match_verified: true }),
  profile_photo: (p) => (p.photo ? { picture: p.photo } : {}),
  profile_photo_verified: (p) => (p.photo ? { picture_verified: p.photoVerified } : {}),
  identity_documents: () => ({}),
  document_type: doc((d) => ({ documentType: d.documentType })),
  document_issuing_country: doc((d) => ({ issuingCountry: d.issuingCountry })),
  document_expiry_date: doc((d) => ({ expiryDate: d.expiryDate })),
  document_validity: doc((d) => ({ validityStatus: d.validityStatus })),
  document_verified: doc(() => ({ verified: true })),
  document_verified_at: doc(() => ({ verifiedAt: VERIFIED_AT })),
  document_number_masked: doc((d) => ({
    maskedDocumentNumber: '*'.repeat(d.documentNumber.length - 3) + d.documentNumber.slice(-3),
  })),
  // Sandbox never releases the full number: the claim carries only what every document shows.
  document_number_full: doc(() => ({})),
};

test('the table covers the 26 scopes of the interface', () => {
  expect(Object.keys(TABLE).sort()).toEqual([...SCOPES].sort());
  expect(SCOPES).toHaveLength(26);
});

let ctx: TestContext;
let app: TestApp;
beforeAll(async () => {
  ctx = await testContext();
  app = await createTestApp(ctx, {
    type: 'confidential',
    redirectUris: [REDIRECT],
    scopes: SCOPES.filter((s) => s !== 'document_number_full'),
  });
  setDocumentPolicy(
    ctx,
    app,
    ['passport', 'id_card', 'driving_licence', 'residence_permit'],
    ['DE', 'FR', 'NL', 'GB', 'IE'],
  );
});
afterAll(() => ctx.cleanup());

describe('claimsFor, every scope × every persona', () => {
  for (const persona of PERSONAS)
    for (const scope of SCOPES)
      test(`${persona.key} · ${scope}`, async () => {
        const person = releasablePerson(ctx, persona.personId)!;
        const docs = createDocumentStore(ctx.db).forHolder({
          personId: persona.personId,
          sessionIdHash: null,
        });
        const sub = await subjectFor(ctx, app.applicationId, persona.personId);
        const d = primaryDoc(persona);
        const ref = d ? await documentReference(ctx, app.applicationId, d.id) : '';
        const claims = claimsFor(person, docs, [scope], {
          sub,
          now: ctx.clock.now(),
          faceResults: { livenessVerified: true, faceMatchVerified: true },
          environment: 'sandbox',
          documentTypes: ['passport', 'id_card', 'driving_licence', 'residence_permit'],
          documentCountries: ['DE', 'FR', 'NL', 'GB', 'IE'],
          fullNumberApproved: true,
          referenceOf: (id) => (id === d?.id ? ref : 'other'),
        });
        expect(claims).toEqual({ sub, ...TABLE[scope](persona, ref) });
        for (const v of Object.values(claims)) expect(v === null || v === undefined).toBe(false);
      });
});

describe('claimsFor details', () => {
  const opts = (over: Partial<Parameters<typeof claimsFor>[3]> = {}) => ({
    sub: 's',
    now: ctx.clock.now(),
    faceResults: { livenessVerified: true, faceMatchVerified: false },
    environment: 'sandbox' as const,
    documentTypes: ['id_card', 'passport'],
    documentCountries: ['FR', 'NL'],
    fullNumberApproved: false,
    referenceOf: () => 'ref',
    ...over,
  });

  test('age is computed at request time: Dan turns 17 on his birthday, still not over 18', () => {
    const dan = releasablePerson(ctx, 'psn_sandbox_dan')!;
    const at = (iso: string) => claimsFor(dan, [], ['age', 'age_over_18'], opts({ now: new Date(iso) }));
    expect(at('2027-05-31T23:59:59Z')).toEqual({ sub: 's', age: 16, age_over_18: false });
    expect(at('2027-06-01T00:00:00Z')).toEqual({ sub: 's', age: 17, age_over_18: false });
    expect(at('2028-06-01T00:00:00Z')).toEqual({ sub: 's', age: 18, age_over_18: true });
    expect(ageAt('2008-02-29', new Date('2026-02-28T12:00:00Z'))).toBe(17);
    expect(ageAt('2008-02-29', new Date('2026-03-01T00:00:00Z'))).toBe(18);
  });

  test('emails and phones list the primary first, then the others in the order they were added', () => {
    const store = createPersonStore(ctx.db);
    const contact = (primary: boolean) => ({ verified: !primary, primary });
    const strip = <T extends { id: number; personId: string }>({ id: _, personId: __, ...c }: T) => c;
    const [emails, phones] = [store.emails('psn_sandbox_ada'), store.phones('psn_sandbox_ada')];
    store.replaceEmails('psn_sandbox_ada', [
      { email: 'first@example.com', ...contact(false) },
      { email: 'main@example.com', ...contact(true) },
      { email: 'third@example.com', ...contact(false) },
    ]);
    store.replacePhones('psn_sandbox_ada', [
      { phone: '+33600000001', ...contact(false) },
      { phone: '+33600000002', ...contact(true) },
    ]);
    const ada = releasablePerson(ctx, 'psn_sandbox_ada')!;
    store.replaceEmails('psn_sandbox_ada', emails.map(strip));
    store.replacePhones('psn_sandbox_ada', phones.map(strip));
    expect(claimsFor(ada, [], ['email', 'emails', 'phone', 'phones'], opts())).toEqual({
      sub: 's',
      email: 'main@example.com',
      email_verified: false,
      emails: [
        { email: 'main@example.com', verified: false, primary: true },
        { email: 'first@example.com', verified: true, primary: false },
        { email: 'third@example.com', verified: true, primary: false },
      ],
      phone_number: '+33600000002',
      phone_number_verified: false,
      phone_numbers: [
        { phone_number: '+33600000002', verified: false, primary: true },
        { phone_number: '+33600000001', verified: true, primary: false },
      ],
    });
  });

  test('face claims describe this authorization: a failed match is false, not absent', () => {
    const ada = releasablePerson(ctx, 'psn_sandbox_ada')!;
    expect(claimsFor(ada, [], ['liveness_verified', 'face_match_verified'], opts())).toEqual({
      sub: 's',
      liveness_verified: true,
      face_match_verified: false,
    });
  });

  test('absence is never false: Cleo has no phone, photo, legal name or documents, and none of them appears', () => {
    const cleo = releasablePerson(ctx, 'psn_sandbox_cleo')!;
    const claims = claimsFor(cleo, [], SCOPES, opts());
    for (const name of [
      'phone_number',
      'phone_number_verified',
      'phone_numbers',
      'picture',
      'picture_verified',
      'legal_name',
      'legal_given_name',
      'legal_family_name',
      'nationalities',
      'document',
    ])
      expect(name in claims).toBe(false);
    expect(claims.identity_verified).toBe(false);
    expect(claims.identity_assurance_level).toBe('none');
    expect(claims.email_verified).toBe(false);
  });

  test("the document claim follows policy and sharing: Ben's primary ID card, or nothing", () => {
    const ben = releasablePerson(ctx, 'psn_sandbox_ben')!;
    const docs = createDocumentStore(ctx.db).forHolder({ personId: 'psn_sandbox_ben', sessionIdHash: null });
    const scopes = ['document_type', 'document_validity'];
    expect(claimsFor(ben, docs, scopes, opts()).document).toEqual({
      documentType: 'id_card',
      validityStatus: 'valid',
    });
    // Policy without ID cards: the expired passport is what is left.
    expect(claimsFor(ben, docs, scopes, opts({ documentTypes: ['passport'] })).document).toMatchObject({
      documentType: 'passport',
      validityStatus: 'expired',
    });
    expect('document' in claimsFor(ben, docs, scopes, opts({ documentCountries: ['DE'] }))).toBe(false);
    const unshared = docs.map((d) => ({ ...d, shareEnabled: false }));
    expect('document' in claimsFor(ben, unshared, scopes, opts())).toBe(false);
    const unverified = docs.map((d) => ({ ...d, verified: false }));
    expect('document' in claimsFor(ben, unverified, scopes, opts())).toBe(false);
  });

  test('the full number needs production, the scope and the approval flag', () => {
    const ben = releasablePerson(ctx, 'psn_sandbox_ben')!;
    const docs = createDocumentStore(ctx.db).forHolder({ personId: 'psn_sandbox_ben', sessionIdHash: null });
    const full = (o: Parameters<typeof opts>[0]) =>
      claimsFor(ben, docs, ['document_number_full'], opts(o)).document as Record<string, unknown>;
    expect(full({ environment: 'production', fullNumberApproved: true }).documentNumber).toBe('X4RTBPFW4');
    expect('documentNumber' in full({ environment: 'production', fullNumberApproved: false })).toBe(false);
    expect('documentNumber' in full({ environment: 'sandbox', fullNumberApproved: true })).toBe(false);
  });
});

describe('through a real flow: Ada, one scope per authorization', () => {
  const ada = PERSONAS.find((p) => p.key === 'ada')!;
  for (const scope of SCOPES.filter((s) => s !== 'document_number_full'))
    test(scope, async () => {
      const { accessToken } = await issueToken(ctx, app, { scopes: [scope], personId: ada.personId });
      const res = await inProcess(ctx)('/v1/userinfo', bearer(accessToken));
      expect(res.status).toBe(200);
      const ref = await documentReference(ctx, app.applicationId, primaryDoc(ada)!.id);
      expect(await res.json()).toEqual({
        sub: await subjectFor(ctx, app.applicationId, ada.personId),
        ...TABLE[scope](ada, ref),
      });
    });

  test('all scopes at once: the union of the rows, and POST answers the same as GET', async () => {
    const scopes = SCOPES.filter((s) => s !== 'document_number_full');
    const { accessToken } = await issueToken(ctx, app, { scopes, personId: ada.personId });
    const ref = await documentReference(ctx, app.applicationId, primaryDoc(ada)!.id);
    const expected: Record<string, unknown> = { sub: await subjectFor(ctx, app.applicationId, ada.personId) };
    const document: Record<string, unknown> = {};
    for (const s of scopes) {
      const row = TABLE[s](ada, ref);
      Object.assign(document, row.document ?? {});
      Object.assign(expected, row);
    }
    expected.document = { documentReference: ref, ...document };
    const get = await inProcess(ctx)('/v1/userinfo', bearer(accessToken));
    expect(await get.json()).toEqual(expected);
    const post = await inProcess(ctx)('/v1/userinfo', { method: 'POST', ...bearer(accessToken) });
    expect(await post.json()).toEqual(expected);
    const form = await inProcess(ctx)('/v1/userinfo', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ access_token: accessToken }).toString(),
    });
    expect(await form.json()).toEqual(expected);
  });
});
