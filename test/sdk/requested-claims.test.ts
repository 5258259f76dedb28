import { expect, test } from 'bun:test';
import { parseClaimsRequest as serverParse } from '../../src/assurance/claims-request.ts';
import { answerVerifiedClaims } from '../../src/assurance/verified-claims.ts';
import { keepRequested } from '../../src/sdk/requested-claims.ts';

const now = new Date('2026-06-01T12:00:00Z');
const refuse = () => new Error('wrong sub');
const keep = (asked: unknown, got: Record<string, unknown>) =>
  keepRequested(asked as never, got, now, refuse);

test('a claim asked for with a value is kept only with that value; sub is refused instead', () => {
  const asked = { sub: { value: 's1' }, email: { values: ['a@example.com'] }, name: null };
  const got: Record<string, unknown> = { sub: 's1', email: 'b@example.com', name: 'B' };
  expect(keepRequested(asked, got, now, refuse)).toEqual({ sub: 's1', name: 'B' });
  expect(() => keepRequested(asked, { ...got, sub: 's2' }, now, refuse)).toThrow('wrong sub');
  // Nothing asked for: nothing changed.
  expect(keepRequested(undefined, got, now, refuse)).toEqual(got);
});

test('verified_claims are kept only where they meet a request: framework, level, time, evidence', () => {
  const request = {
    verification: {
      trust_framework: { value: 'eidas' },
      assurance_level: { values: ['high'] },
      time: { max_age: 3600 },
      evidence: [
        { type: { value: 'document' as const }, document_details: { type: { values: ['passport'] } } },
      ],
    },
    claims: { given_name: null },
  };
  const met = {
    verification: {
      trust_framework: 'eidas',
      assurance_level: 'high',
      time: '2026-06-01T11:30:00Z',
      evidence: [{ type: 'document', document_details: { type: 'passport' } }],
    },
    claims: { given_name: 'Ada' },
  };
  const keep = (vc: unknown) =>
    keepRequested<Record<string, unknown>>(
      { verified_claims: request },
      { verified_claims: vc },
      now,
      refuse,
    );
  expect(keep(met)).toEqual({ verified_claims: met });
  const withVerification = (v: object) => ({ ...met, verification: { ...met.verification, ...v } });
  for (const unmet of [
    withVerification({ trust_framework: 'other' }),
    withVerification({ assurance_level: undefined }),
    withVerification({ time: '2026-06-01T10:00:00Z' }),
    withVerification({ evidence: [{ type: 'document', document_details: { type: 'idcard' } }] }),
  ])
    expect(keep(unmet)).toEqual({});
  // Of several, the ones that meet it stay, as a list.
  expect(keep([met, withVerification({ assurance_level: 'low' })])).toEqual({ verified_claims: [met] });
});

// The cases below hold the SDK to Verity's own filter (src/assurance/verified-claims.ts) on the same data.
/** What Verity holds for an ID-card-only person (evidence of type document, an idcard). */
const available = {
  verification: {
    trust_framework: 'eidas',
    assurance_level: 'substantial',
    time: '2026-05-01T10:00:00.000Z',
    evidence: [{ type: 'document' as const, document_details: { type: 'idcard' } }],
  },
  claims: { given_name: 'Dan', family_name: 'Example' },
};
/** What the application asks for: verified claims from a passport only. */
const passportOnly = {
  verification: {
    trust_framework: null,
    evidence: [{ type: { value: 'document' }, document_details: { type: { values: ['passport'] } } }],
  },
  claims: { given_name: null, family_name: null },
};
const serverAnswer = (request: unknown) => {
  const parsed = serverParse(JSON.stringify({ id_token: { verified_claims: request } }));
  if (!parsed.ok) throw new Error(parsed.problem);
  return answerVerifiedClaims(available as never, parsed.request.id_token!.verifiedClaims![0]!, now);
};

test('Verity itself leaves out verified_claims backed by an ID card when a passport is asked for', () => {
  expect(serverAnswer(passportOnly)).toBeUndefined();
});

test('evidence deleted from the request: what Verity answers then does not meet the intact one', () => {
  // The person removes `evidence` from the request; Verity answers the edited request, without evidence.
  const edited = { ...passportOnly, verification: { trust_framework: null } };
  const answer = serverAnswer(edited);
  expect(answer).toBeDefined();
  expect(answer!.verification.evidence).toBeUndefined();
  // Held to the original request, it must be left out as Verity would have left it out.
  expect(keep({ verified_claims: passportOnly }, { verified_claims: answer })).toEqual({});
});

test('document_details deleted from the evidence request: the same', () => {
  const edited = {
    ...passportOnly,
    verification: { trust_framework: null, evidence: [{ type: { value: 'document' } }] },
  };
  const answer = serverAnswer(edited);
  expect(answer!.verification.evidence).toEqual([{ type: 'document' }]);
  expect(keep({ verified_claims: passportOnly }, { verified_claims: answer })).toEqual({});
});

test('a claim Verity left out of verified_claims for its value leaves the rest standing', () => {
  // Verity answers: verification met, given_name left out (claims are not strict, OIDC4IDA §5.7.4).
  const request = {
    verification: { trust_framework: null },
    claims: { given_name: { value: 'Alice' }, family_name: null },
  };
  const answer = serverAnswer(request);
  expect(answer).toEqual({ verification: { trust_framework: 'eidas' }, claims: { family_name: 'Example' } });
  // Nothing in the answer fails the request: it is what Verity itself sends for it.
  expect(keep({ verified_claims: request }, { verified_claims: answer })).toEqual({
    verified_claims: answer,
  });
});

test('a date-only element with max_age is counted from the end of its day, as Verity counts it', () => {
  const issued = '2026-05-31';
  const holder = {
    ...available,
    verification: {
      ...available.verification,
      evidence: [
        { type: 'document' as const, document_details: { type: 'idcard', date_of_issuance: issued } },
      ],
    },
  };
  // At most 20 hours old: Verity counts 2026-05-31 from 23:59:59Z, 12 h 1 s before now.
  const request = {
    verification: {
      trust_framework: null,
      evidence: [
        {
          type: { value: 'document' },
          document_details: { type: null, date_of_issuance: { max_age: 72000 } },
        },
      ],
    },
    claims: null,
  };
  const parsed = serverParse(JSON.stringify({ id_token: { verified_claims: request } }));
  if (!parsed.ok) throw new Error(parsed.problem);
  const answer = answerVerifiedClaims(holder as never, parsed.request.id_token!.verifiedClaims![0]!, now);
  expect(answer?.verification.evidence?.[0]?.document_details?.date_of_issuance).toBe(issued); // Verity releases it
  expect(keep({ verified_claims: request }, { verified_claims: answer })).toEqual({
    verified_claims: answer,
  });
});

test('members of an element request Verity ignores (Core §5.5) are ignored here too', () => {
  const asked = { sub: { value: 's1', essential: true, 'x-reason': 'step-up' } };
  const parsed = serverParse(JSON.stringify({ id_token: asked }));
  expect(parsed.ok).toBe(true); // Verity accepts it and answers for s1
  expect(() => keep(asked, { sub: 's1' })).not.toThrow();
  // A plain claim the same way is dropped though its value meets the request.
  expect(
    keep({ email: { value: 'a@x.example', 'x-reason': 'r' } }, { sub: 's1', email: 'a@x.example' }),
  ).toEqual({
    sub: 's1',
    email: 'a@x.example',
  });
});
