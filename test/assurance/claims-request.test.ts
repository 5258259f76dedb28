import { describe, expect, test } from 'bun:test';
import { essentialAcr, parseClaimsRequest } from '../../src/assurance/claims-request.ts';
import { SPEC_EXAMPLES, validClaimsRequest } from './ida-schema.ts';

/**
 * The `claims` parameter's syntax (OIDC Core §5.5 with OIDC4IDA's `verified_claims`): what the published
 * request schema accepts is accepted, what it refuses is refused, and members neither defines are ignored
 * as Core §5.5 requires.
 */

const parse = (v: unknown) => parseClaimsRequest(typeof v === 'string' ? v : JSON.stringify(v));

describe('the specification request examples', () => {
  test('there are examples to check', () => {
    expect(Object.keys(SPEC_EXAMPLES).length).toBeGreaterThanOrEqual(10);
  });
  for (const [name, example] of Object.entries(SPEC_EXAMPLES))
    test(`${name} is valid against the schema and accepted`, () => {
      expect(validClaimsRequest(example)).toBe(true);
      expect(parse(example).ok).toBe(true);
    });
});

const REFUSED: [string, unknown][] = [
  ['an array', [{ userinfo: {} }]],
  ['a string', 'given_name'],
  ['userinfo not an object', { userinfo: ['email'] }],
  ['a claim request that is a number', { id_token: { email: 1 } }],
  ['essential not a boolean', { userinfo: { email: { essential: 'yes' } } }],
  ['values not a list', { userinfo: { email: { values: 'a@b.example' } } }],
  [
    'verified_claims without verification',
    { userinfo: { verified_claims: { claims: { given_name: null } } } },
  ],
  [
    'verified_claims without claims',
    { userinfo: { verified_claims: { verification: { trust_framework: null } } } },
  ],
  [
    'verification without trust_framework',
    { userinfo: { verified_claims: { verification: {}, claims: null } } },
  ],
  [
    'an unknown member of verified_claims',
    { userinfo: { verified_claims: { verification: { trust_framework: null }, claims: null, extra: 1 } } },
  ],
  [
    'evidence without a type value',
    {
      userinfo: {
        verified_claims: {
          verification: { trust_framework: null, evidence: [{ type: null }] },
          claims: null,
        },
      },
    },
  ],
  [
    'an unknown evidence type',
    {
      userinfo: {
        verified_claims: {
          verification: { trust_framework: null, evidence: [{ type: { value: 'selfie' } }] },
          claims: null,
        },
      },
    },
  ],
  [
    'a negative max_age',
    {
      userinfo: {
        verified_claims: { verification: { trust_framework: null, time: { max_age: -1 } }, claims: null },
      },
    },
  ],
];

describe('refused structures', () => {
  test('malformed JSON', () => {
    const r = parseClaimsRequest('{"userinfo": {');
    expect(r).toEqual({ ok: false, problem: 'The claims parameter is not valid JSON.' });
  });
  for (const [what, request] of REFUSED)
    test(`${what}: refused, with where it went wrong`, () => {
      const r = parse(request);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.problem).toStartWith('The claims parameter ');
    });
  test('the schema refuses the verified_claims among them too', () => {
    for (const [what, request] of REFUSED.slice(6))
      expect([what, validClaimsRequest(request)]).toEqual([what, false]);
  });
});

describe('normalised', () => {
  test('null requests become {}, unknown members are ignored, and a single verified_claims becomes a list of one', () => {
    const r = parse({
      userinfo: {
        email: null,
        nickname: { essential: true, unknown_member: 1 },
        verified_claims: { verification: { trust_framework: null, x: 1 }, claims: { given_name: null } },
      },
      id_token: { birthdate: { value: '1990-12-10' } },
      extension_member: { anything: true },
    });
    expect(r).toEqual({
      ok: true,
      request: {
        userinfo: {
          claims: { email: {}, nickname: { essential: true } },
          verifiedClaims: [{ verification: { trust_framework: {}, x: 1 }, claims: { given_name: {} } }],
          verifiedClaimsList: false,
        },
        id_token: { claims: { birthdate: { value: '1990-12-10' } } },
      },
    });
  });

  test('an empty verified_claims list asks for nothing', () => {
    expect(parse({ userinfo: { verified_claims: [] } })).toEqual({
      ok: true,
      request: { userinfo: { claims: {} } },
    });
  });

  test('a list of verified_claims stays a list', () => {
    const r = parse(SPEC_EXAMPLES.verification_claims_by_trust_frameworks);
    expect(r.ok && r.request.userinfo?.verifiedClaimsList).toBe(true);
    expect(r.ok && r.request.userinfo?.verifiedClaims?.length).toBe(2);
  });
});

describe('essentialAcr', () => {
  const acr = (v: unknown) => {
    const r = parse({ id_token: { acr: v } });
    if (!r.ok) throw new Error(r.problem);
    return essentialAcr(r.request);
  };
  test('the values an essential acr asks for', () => {
    expect(acr({ essential: true, values: ['high', 'substantial'] })).toEqual(['high', 'substantial']);
    expect(acr({ essential: true, value: 'high' })).toEqual(['high']);
  });
  test('nothing when acr is voluntary, names no value, or is not requested', () => {
    expect(acr({ values: ['high'] })).toBeUndefined();
    expect(acr({ essential: true })).toBeUndefined();
    expect(acr(null)).toBeUndefined();
    expect(essentialAcr(undefined)).toBeUndefined();
  });
});
