import { describe, expect, test } from 'bun:test';
import { parseClaimsRequest, type RequestedClaims } from '../../src/assurance/claims-request.ts';
import { documentEvidence } from '../../src/assurance/verification.ts';
import {
  availableVerifiedClaims,
  type VerifiedClaims,
  type VerifiedPerson,
  verifiedClaimsAnswer,
} from '../../src/assurance/verified-claims.ts';
import type { SharedDocument } from '../../src/documents/document.store.ts';
import type { DocumentAccess } from '../../src/documents/eligibility.ts';
import { SPEC_EXAMPLES, verifiedClaimsProblems } from './ida-schema.ts';

/**
 * The filtering rules of OIDC4IDA §5.4–5.7, driven by the request examples of the specification against
 * a person like the Ada persona; every answer is checked against the published response schema.
 */

const NOW = new Date(Date.UTC(2026, 5, 1, 12));
const VERIFIED_AT = Date.UTC(2025, 8, 15, 9, 30) / 1000;

const ADA: VerifiedPerson = {
  identityVerified: true,
  assuranceLevel: 'high',
  legalGivenName: 'Ada Marie',
  legalFamilyName: 'Sandbox',
  birthdate: '1990-12-10',
  nationalities: ['DE'],
};

const passport: SharedDocument = {
  id: 'doc_1',
  personId: 'psn_1',
  documentType: 'passport',
  issuingCountry: 'DE',
  documentNumber: 'C01X00T47',
  displayName: 'German passport',
  issueDate: '2021-03-15',
  expiryDate: '2031-03-14',
  validityStatus: 'valid',
  verified: true,
  verifiedAt: VERIFIED_AT,
  checkMethod: 'vcrypt',
  shareEnabled: true,
  status: 'active',
  primary: true,
  attestationId: 'att_1',
  proofStatus: 'active',
};

const SANDBOX: DocumentAccess = {
  environment: 'sandbox',
  documentTypes: ['passport', 'id_card'],
  documentCountries: ['DE'],
  fullNumberApproved: false,
};

const ALL_SCOPES = [
  'identity_verified',
  'identity_assurance_level',
  'legal_name',
  'date_of_birth',
  'nationality',
  'document_type',
  'document_issuing_country',
  'document_expiry_date',
  'document_number_masked',
];

interface Case {
  trustFramework?: string;
  scopes?: string[];
  person?: Partial<VerifiedPerson>;
  documents?: SharedDocument[];
  access?: DocumentAccess;
  now?: Date;
}

function member(request: unknown): RequestedClaims {
  const r = parseClaimsRequest(JSON.stringify(request));
  if (!r.ok) throw new Error(r.problem);
  return (r.request.userinfo ?? r.request.id_token)!;
}

/** The answer to a request; whatever is emitted must be valid against the published schema. */
function answer(request: unknown, c: Case = {}): VerifiedClaims | VerifiedClaims[] | undefined {
  const available = availableVerifiedClaims(
    { ...ADA, ...c.person },
    {
      trustFramework: 'trustFramework' in c ? c.trustFramework : 'verity_sandbox',
      documents: c.documents ?? [passport],
      scopes: new Set(c.scopes ?? ALL_SCOPES),
      access: c.access ?? SANDBOX,
    },
  );
  const out = verifiedClaimsAnswer(available, member(request), c.now ?? NOW);
  if (out !== undefined) expect(verifiedClaimsProblems({ verified_claims: out })).toEqual([]);
  return out;
}

const ADA_CLAIMS = { given_name: 'Ada Marie', family_name: 'Sandbox', birthdate: '1990-12-10' };

describe('requests from the specification', () => {
  test('claims: the trust framework and exactly the three claims asked for', () => {
    expect(answer(SPEC_EXAMPLES.claims)).toEqual({
      verification: { trust_framework: 'verity_sandbox' },
      claims: ADA_CLAIMS,
    });
  });

  test('essential: the same answer (essential changes nothing about what is released)', () => {
    expect(answer(SPEC_EXAMPLES.essential)).toEqual(answer(SPEC_EXAMPLES.claims));
  });

  test('verification: adds the time of the latest check of the documents behind it', () => {
    expect(answer(SPEC_EXAMPLES.verification)).toEqual({
      verification: { trust_framework: 'verity_sandbox', time: '2025-09-15T09:30:00.000Z' },
      claims: ADA_CLAIMS,
    });
  });

  test('verification_document: the document evidence with what Verity holds, nothing it does not', () => {
    // Asked: check_method, type, issuer country and name, number, date of issuance. Verity records no
    // issuer name: that is left out, never made up.
    expect(answer(SPEC_EXAMPLES.verification_document)).toEqual({
      verification: {
        trust_framework: 'verity_sandbox',
        time: '2025-09-15T09:30:00.000Z',
        evidence: [
          {
            type: 'document',
            check_details: [{ check_method: 'vcrypt' }],
            document_details: {
              type: 'passport',
              issuer: { country: 'Germany' },
              document_number: '******T47',
              date_of_issuance: '2021-03-15',
            },
          },
        ],
      },
      claims: ADA_CLAIMS,
    });
  });

  test('verification_deeper: a check method the document was not checked by leaves verified_claims out', () => {
    expect(answer(SPEC_EXAMPLES.verification_deeper)).toBeUndefined();
    // The same request for the method the passport was checked by is answered.
    const vcrypt = JSON.parse(
      JSON.stringify(SPEC_EXAMPLES.verification_deeper).replace('"pipp"', '"vcrypt"'),
    );
    expect(answer(vcrypt)).toEqual({
      verification: {
        trust_framework: 'verity_sandbox',
        time: '2025-09-15T09:30:00.000Z',
        evidence: [
          {
            type: 'document',
            check_details: [{ check_method: 'vcrypt' }],
            document_details: { type: 'passport' },
          },
        ],
      },
      claims: ADA_CLAIMS,
    });
    // A document with no recorded check cannot be shown to meet the requirement.
    expect(answer(vcrypt, { documents: [{ ...passport, checkMethod: null }] })).toBeUndefined();
  });

  test('verification_aml: another trust framework, or the same one without an in-person check, is no match', () => {
    expect(answer(SPEC_EXAMPLES.verification_aml)).toBeUndefined();
    expect(answer(SPEC_EXAMPLES.verification_aml, { trustFramework: 'de_aml' })).toBeUndefined();
    const vcrypt = JSON.parse(JSON.stringify(SPEC_EXAMPLES.verification_aml).replace('"pipp"', '"vcrypt"'));
    expect(answer(vcrypt, { trustFramework: 'de_aml' })).toMatchObject({
      verification: { evidence: [{ check_details: [{ check_method: 'vcrypt' }] }] },
    });
  });

  test('verification_claims_different_trust_frameworks: answered only under gold or silver', () => {
    expect(answer(SPEC_EXAMPLES.verification_claims_different_trust_frameworks)).toBeUndefined();
    expect(
      answer(SPEC_EXAMPLES.verification_claims_different_trust_frameworks, { trustFramework: 'silver' }),
    ).toEqual({
      verification: { trust_framework: 'silver' },
      claims: { given_name: 'Ada Marie', family_name: 'Sandbox' },
    });
  });

  test('verification_claims_by_trust_frameworks: each object is answered on its own, as a list', () => {
    const request = SPEC_EXAMPLES.verification_claims_by_trust_frameworks;
    expect(answer(request, { trustFramework: 'eidas' })).toEqual([
      {
        verification: { trust_framework: 'eidas', assurance_level: 'high' },
        claims: { given_name: 'Ada Marie', family_name: 'Sandbox' },
      },
      {
        verification: { trust_framework: 'eidas', assurance_level: 'high' },
        claims: { birthdate: '1990-12-10' },
      },
    ]);
    expect(answer(request, { trustFramework: 'eidas', person: { assuranceLevel: 'substantial' } })).toEqual([
      {
        verification: { trust_framework: 'eidas', assurance_level: 'substantial' },
        claims: { birthdate: '1990-12-10' },
      },
    ]);
    expect(answer(request, { trustFramework: 'eidas', person: { assuranceLevel: 'low' } })).toBeUndefined();
    // A level the person did not let the application see cannot be shown to match.
    const noLevel = ALL_SCOPES.filter((s) => s !== 'identity_assurance_level');
    expect(answer(request, { trustFramework: 'eidas', scopes: noLevel })).toBeUndefined();
  });

  test('verification_claims_by_trust_frameworks_same_claims: document evidence under gold only', () => {
    const request = SPEC_EXAMPLES.verification_claims_by_trust_frameworks_same_claims;
    expect(answer(request, { trustFramework: 'gold' })).toEqual([
      {
        verification: { trust_framework: 'gold', evidence: [{ type: 'document' }] },
        claims: { given_name: 'Ada Marie', family_name: 'Sandbox' },
      },
    ]);
    // Silver asks for an electronic record, which Verity does not hold.
    expect(answer(request, { trustFramework: 'silver' })).toBeUndefined();
  });

  test('verification_max_age: answered while the verification is recent enough, left out after', () => {
    const request = SPEC_EXAMPLES.verification_max_age;
    expect(answer(request, { trustFramework: 'jp_aml' })).toMatchObject({
      verification: { trust_framework: 'jp_aml', time: '2025-09-15T09:30:00.000Z' },
    });
    // 63113852 s is about two years after 2025-09-15.
    expect(
      answer(request, { trustFramework: 'jp_aml', now: new Date(Date.UTC(2027, 8, 16)) }),
    ).toBeUndefined();
    // No documents: no time to compare, so no match.
    expect(answer(request, { trustFramework: 'jp_aml', documents: [] })).toBeUndefined();
  });

  test('simple_id_token and id_token: the same rules for the id_token member', () => {
    expect(answer(SPEC_EXAMPLES.simple_id_token)).toEqual({
      verification: { trust_framework: 'verity_sandbox' },
      claims: { family_name: 'Sandbox' },
    });
    expect(answer(SPEC_EXAMPLES.id_token)).toMatchObject({
      verification: {
        evidence: [
          {
            type: 'document',
            check_details: [{ check_method: 'vcrypt' }],
            document_details: {
              type: 'passport',
              issuer: { country: 'Germany' },
              document_number: '******T47',
              date_of_issuance: '2021-03-15',
              date_of_expiry: '2031-03-14',
            },
          },
        ],
      },
    });
    // The time of the check, which id_token asks for, needs document_verified_at.
    const withTime = answer(SPEC_EXAMPLES.id_token, { scopes: [...ALL_SCOPES, 'document_verified_at'] });
    expect((withTime as VerifiedClaims).verification.evidence![0]!.check_details).toEqual([
      { check_method: 'vcrypt', time: '2025-09-15T09:30:00.000Z' },
    ]);
  });
});

const simple = (
  verification: Record<string, unknown>,
  claims: Record<string, unknown> = { given_name: null },
) => ({
  userinfo: { verified_claims: { verification: { trust_framework: null, ...verification }, claims } },
});

describe('consent, availability and constraints', () => {
  test('only claims of approved scopes: without legal_name no names, without date_of_birth no birthdate', () => {
    const scopes = ALL_SCOPES.filter((s) => s !== 'legal_name');
    expect(answer(SPEC_EXAMPLES.claims, { scopes })).toEqual({
      verification: { trust_framework: 'verity_sandbox' },
      claims: { birthdate: '1990-12-10' },
    });
    const none = ['identity_verified'];
    expect(answer(SPEC_EXAMPLES.claims, { scopes: none })).toEqual({
      verification: { trust_framework: 'verity_sandbox' },
      claims: {},
    });
  });

  test('nothing without identity_verified, for an unverified person, or without a trust framework', () => {
    const scopes = ALL_SCOPES.filter((s) => s !== 'identity_verified');
    expect(answer(SPEC_EXAMPLES.claims, { scopes })).toBeUndefined();
    expect(answer(SPEC_EXAMPLES.claims, { person: { identityVerified: false } })).toBeUndefined();
    expect(answer(SPEC_EXAMPLES.claims, { trustFramework: undefined })).toBeUndefined();
  });

  test('a verified claim whose value does not match is left out; the rest stays', () => {
    expect(
      answer(simple({}, { given_name: { value: 'Grace' }, birthdate: { values: ['1990-12-10'] } })),
    ).toEqual({
      verification: { trust_framework: 'verity_sandbox' },
      claims: { birthdate: '1990-12-10' },
    });
  });

  test('a document type filter: passport matches a passport, idcard does not', () => {
    const evidence = (values: string[]) =>
      simple({ evidence: [{ type: { value: 'document' }, document_details: { type: { values } } }] });
    expect(answer(evidence(['idcard']))).toBeUndefined();
    expect(answer(evidence(['idcard', 'passport']))).toMatchObject({
      verification: { evidence: [{ type: 'document', document_details: { type: 'passport' } }] },
    });
    // Without document_type approved the type cannot be shown to match.
    const scopes = ALL_SCOPES.filter((s) => s !== 'document_type');
    expect(answer(evidence(['passport']), { scopes })).toBeUndefined();
  });

  test('max_age on the date of expiry: a document that expired too long ago does not match', () => {
    const request = simple({
      evidence: [
        { type: { value: 'document' }, document_details: { type: null, date_of_expiry: { max_age: 0 } } },
      ],
    });
    expect(answer(request)).toMatchObject({
      verification: { evidence: [{ document_details: { date_of_expiry: '2031-03-14' } }] },
    });
    const expired = { ...passport, expiryDate: '2026-01-31', validityStatus: 'expired' as const };
    expect(answer(request, { documents: [expired] })).toBeUndefined();
  });

  test('evidence only for documents the application may see, and only with a document scope', () => {
    const request = simple({ evidence: [{ type: { value: 'document' } }] });
    expect(answer(request, { documents: [{ ...passport, shareEnabled: false }] })).toBeUndefined();
    expect(answer(request, { access: { ...SANDBOX, documentCountries: ['FR'] } })).toBeUndefined();
    expect(answer(request, { scopes: ['identity_verified', 'legal_name'] })).toBeUndefined();
    expect(answer(request, { scopes: ['identity_verified', 'document_expiry_date'] })).toEqual({
      verification: { trust_framework: 'verity_sandbox', evidence: [{ type: 'document' }] },
      claims: {},
    });
  });

  test('document_details without its type is left out whole, as the schema requires the type', () => {
    const request = simple({
      evidence: [{ type: { value: 'document' }, document_details: { document_number: null } }],
    });
    expect(answer(request)).toMatchObject({ verification: { evidence: [{ type: 'document' }] } });
    const out = answer(request) as VerifiedClaims;
    expect(out.verification.evidence![0]).toEqual({ type: 'document' });
  });

  test('the number is masked, and full only in production with document_number_full and approval', () => {
    const request = simple({
      evidence: [{ type: { value: 'document' }, document_details: { type: null, document_number: null } }],
    });
    const number = (c: Case) =>
      (answer(request, c) as VerifiedClaims).verification.evidence![0]!.document_details!.document_number;
    expect(number({})).toBe('******T47');
    const production = { ...SANDBOX, environment: 'production' as const, fullNumberApproved: true };
    const full = [...ALL_SCOPES, 'document_number_full'];
    // Sandbox never releases the full number, even with the scope and an approval (interface rule 2).
    expect(number({ access: { ...SANDBOX, fullNumberApproved: true }, scopes: full })).toBe('******T47');
    expect(number({ access: production, scopes: full, trustFramework: 'de_aml' })).toBe('C01X00T47');
    expect(
      number({
        access: { ...production, fullNumberApproved: false },
        scopes: full,
        trustFramework: 'de_aml',
      }),
    ).toBe('******T47');
    const unmasked = ALL_SCOPES.filter((s) => s !== 'document_number_masked');
    expect(number({ scopes: unmasked })).toBeUndefined();
  });

  test('the issuer as the alpha-3 code when country_code is asked', () => {
    const request = simple({
      evidence: [
        { type: { value: 'document' }, document_details: { type: null, issuer: { country_code: null } } },
      ],
    });
    expect(answer(request)).toMatchObject({
      verification: {
        evidence: [{ document_details: { type: 'passport', issuer: { country_code: 'DEU' } } }],
      },
    });
  });

  test('the date of issuance comes with the date of expiry, and meets max_age like it', () => {
    const request = simple({
      evidence: [{ type: { value: 'document' }, document_details: { type: null, date_of_issuance: null } }],
    });
    const details = (c: Case) =>
      (answer(request, c) as VerifiedClaims).verification.evidence![0]!.document_details;
    expect(details({})).toEqual({ type: 'passport', date_of_issuance: '2021-03-15' });
    const noExpiry = ALL_SCOPES.filter((s) => s !== 'document_expiry_date');
    expect(details({ scopes: noExpiry })).toEqual({ type: 'passport' });
    expect(details({ documents: [{ ...passport, issueDate: null }] })).toEqual({ type: 'passport' });
    // Issued 2021-03-15: not within a year of 2026-06-01.
    const recent = simple({
      evidence: [
        {
          type: { value: 'document' },
          document_details: { type: null, date_of_issuance: { max_age: 365 * 24 * 3600 } },
        },
      ],
    });
    expect(answer(recent)).toBeUndefined();
    expect(answer(recent, { documents: [{ ...passport, issueDate: '2026-01-10' }] })).toMatchObject({
      verification: { evidence: [{ document_details: { date_of_issuance: '2026-01-10' } }] },
    });
  });

  test('check_details: the method with identity_verified, its time only with document_verified_at', () => {
    const request = simple({
      evidence: [{ type: { value: 'document' }, check_details: [{ check_method: null, time: null }] }],
    });
    const checks = (c: Case) =>
      (answer(request, c) as VerifiedClaims).verification.evidence![0]!.check_details;
    expect(checks({})).toEqual([{ check_method: 'vcrypt' }]);
    expect(checks({ scopes: [...ALL_SCOPES, 'document_verified_at'] })).toEqual([
      { check_method: 'vcrypt', time: '2025-09-15T09:30:00.000Z' },
    ]);
    // Nothing recorded: the evidence without check_details, since nothing was required of them.
    expect(checks({ documents: [{ ...passport, checkMethod: null }] })).toBeUndefined();
    // Not asked for: not shown.
    const plain = simple({ evidence: [{ type: { value: 'document' }, document_details: { type: null } }] });
    expect((answer(plain) as VerifiedClaims).verification.evidence).toEqual([
      { type: 'document', document_details: { type: 'passport' } },
    ]);
  });

  test('documentEvidence alone: no check method without identity_verified, no time without a check', () => {
    const evidence = (scopes: string[], doc = passport) =>
      documentEvidence(doc, { scopes: new Set(scopes), access: SANDBOX });
    expect(evidence(['document_type', 'document_verified_at'])).toEqual({
      type: 'document',
      document_details: { type: 'passport' },
    });
    expect(evidence(['identity_verified', 'document_verified_at'])).toEqual({
      type: 'document',
      check_details: [{ check_method: 'vcrypt', time: '2025-09-15T09:30:00.000Z' }],
    });
    expect(
      evidence(['identity_verified', 'document_verified_at'], { ...passport, verifiedAt: null }),
    ).toEqual({
      type: 'document',
      check_details: [{ check_method: 'vcrypt' }],
    });
  });

  test('check_method values, and check_details entries, are alternatives', () => {
    const checks = (...entries: Record<string, unknown>[]) =>
      simple({ evidence: [{ type: { value: 'document' }, check_details: entries }] });
    const shown = (request: unknown) =>
      (answer(request) as VerifiedClaims | undefined)?.verification.evidence?.[0]?.check_details;
    expect(shown(checks({ check_method: { values: ['vpip', 'vcrypt'] } }))).toEqual([
      { check_method: 'vcrypt' },
    ]);
    expect(shown(checks({ check_method: { values: ['vpip', 'vri'] } }))).toBeUndefined();
    expect(
      shown(checks({ check_method: { value: 'vpip' } }, { check_method: { value: 'vcrypt' }, time: null })),
    ).toEqual([{ check_method: 'vcrypt' }]);
    expect(
      answer(checks({ check_method: { value: 'vpip' } }, { check_method: { value: 'bvr' } })),
    ).toBeUndefined();
  });

  test('max_age on the time of the check', () => {
    const request = simple({
      evidence: [
        {
          type: { value: 'document' },
          check_details: [{ check_method: null, time: { max_age: 365 * 24 * 3600 } }],
        },
      ],
    });
    const scopes = [...ALL_SCOPES, 'document_verified_at'];
    // Checked 2025-09-15, asked 2026-06-01: within a year.
    expect(answer(request, { scopes })).toMatchObject({
      verification: { evidence: [{ check_details: [{ check_method: 'vcrypt' }] }] },
    });
    expect(answer(request, { scopes, now: new Date(Date.UTC(2026, 8, 16)) })).toBeUndefined();
    // Without document_verified_at the time cannot be shown to be recent enough.
    expect(answer(request)).toBeUndefined();
  });
});
