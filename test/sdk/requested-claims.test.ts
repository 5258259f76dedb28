import { expect, test } from 'bun:test';
import { keepRequested } from '../../src/sdk/requested-claims.ts';

const now = new Date('2026-06-01T12:00:00Z');
const refuse = () => new Error('wrong sub');

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
