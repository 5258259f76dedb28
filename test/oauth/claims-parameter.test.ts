import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { decodeJwt } from 'jose';
import { createAuthorizationRequestStore } from '../../src/oauth/authorization-request.store.ts';
import { verifiedClaimsProblems } from '../assurance/ida-schema.ts';
import { createTestApp, type TestApp } from '../helpers/apps.ts';
import { type TestContext, testContext } from '../helpers/context.ts';
import { bearer, issueToken, setDocumentPolicy } from '../userinfo/fixtures.ts';
import { inProcess, mintCode, pkcePair, REDIRECT } from './fixtures.ts';

/**
 * The `claims` parameter end to end in one process: checked at authorize (errors redirected like any
 * other invalid request), stored with the request, the code and the token, and answered in the ID
 * token and at UserInfo within the approved scopes only.
 */

let ctx: TestContext;
let app: TestApp;
const ADA = 'psn_sandbox_ada';
const IDA_SCOPES = [
  'openid',
  'identity_verified',
  'identity_assurance_level',
  'legal_name',
  'date_of_birth',
  'nationality',
  'email',
  'document_type',
  'document_issuing_country',
  'document_expiry_date',
  'document_number_masked',
];

beforeAll(async () => {
  ctx = await testContext({ extra: '[rate_limits.oauth]\nrequests = 10000' });
  app = await createTestApp(ctx, { type: 'confidential', redirectUris: [REDIRECT], scopes: IDA_SCOPES });
  setDocumentPolicy(ctx, app, ['passport'], ['DE']);
});
afterAll(() => ctx.cleanup());

const VERIFIED = {
  verification: {
    trust_framework: null,
    assurance_level: null,
    time: null,
    evidence: [
      {
        type: { value: 'document' },
        check_details: [{ check_method: null }],
        document_details: {
          type: null,
          document_number: null,
          date_of_issuance: null,
          date_of_expiry: null,
          issuer: { country_code: null },
        },
      },
    ],
  },
  claims: { given_name: null, family_name: null, birthdate: null, nationalities: null },
};

const ADA_VERIFIED = {
  verification: {
    trust_framework: 'verity_sandbox',
    assurance_level: 'high',
    time: '2025-09-15T09:30:00.000Z',
    evidence: [
      {
        type: 'document',
        check_details: [{ check_method: 'vcrypt' }],
        document_details: {
          type: 'passport',
          document_number: '******T47',
          date_of_issuance: '2021-03-15',
          date_of_expiry: '2031-03-14',
          issuer: { country_code: 'DEU' },
        },
      },
    ],
  },
  claims: { given_name: 'Ada Marie', family_name: 'Sandbox', birthdate: '1990-12-10', nationalities: ['DE'] },
};

async function authorizeWith(claims: string, method: 'GET' | 'POST' = 'GET') {
  const p = new URLSearchParams({
    response_type: 'code',
    client_id: app.clientId,
    redirect_uri: REDIRECT,
    scope: 'openid email',
    state: 'st-1',
    nonce: 'n-1',
    code_challenge: (await pkcePair()).challenge,
    code_challenge_method: 'S256',
    claims,
  });
  const request = inProcess(ctx);
  return method === 'GET'
    ? request(`/v1/oauth/authorize?${p}`)
    : request('/v1/oauth/authorize', {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: p.toString(),
      });
}

describe('at authorize', () => {
  const refused = [
    ['malformed JSON', '{"userinfo":'],
    ['not an object', '["email"]'],
    ['an unknown structure', '{"userinfo":{"email":"yes please"}}'],
    [
      'verified_claims without a trust framework',
      '{"id_token":{"verified_claims":{"verification":{},"claims":null}}}',
    ],
    ['over 4096 bytes', JSON.stringify({ userinfo: { email: { values: ['x'.repeat(4100)] } } })],
  ];
  for (const [what, claims] of refused)
    for (const method of ['GET', 'POST'] as const)
      test(`${what} (${method}): invalid_request redirected to the callback with the state`, async () => {
        const res = await authorizeWith(claims!, method);
        expect(res.status).toBe(303);
        const location = new URL(res.headers.get('location')!);
        expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
        expect(location.searchParams.get('error')).toBe('invalid_request');
        expect(location.searchParams.get('error_description')).toContain('claims parameter');
        expect(location.searchParams.get('state')).toBe('st-1');
      });

  test('a valid request is stored normalised with the authorization request', async () => {
    const res = await authorizeWith(JSON.stringify({ userinfo: { email: null } }));
    expect(res.status).toBe(303);
    const id = new URL(res.headers.get('location')!).pathname.split('/').pop()!;
    const row = createAuthorizationRequestStore(ctx.db).joined(id)!;
    expect(JSON.parse(row.claims!)).toEqual({ userinfo: { claims: { email: {} } } });
  });

  test('without the parameter nothing is stored', async () => {
    const minted = await mintCode(ctx, app, { scopes: ['openid'], personId: ADA });
    expect(createAuthorizationRequestStore(ctx.db).joined(minted.requestId)!.claims).toBeNull();
  });
});

const issue = (scopes: string[], claims?: unknown) =>
  issueToken(ctx, app, {
    scopes,
    personId: ADA,
    ...(claims === undefined ? {} : { params: { claims: JSON.stringify(claims) } }),
  });

const userinfo = async (token: string) =>
  (await (await inProcess(ctx)('/v1/userinfo', bearer(token))).json()) as Record<string, unknown>;

describe('in the ID token', () => {
  test('without a claims request the ID token holds only its own claims', async () => {
    const { idToken } = await issue(IDA_SCOPES);
    const payload = decodeJwt(idToken!);
    expect(Object.keys(payload).sort()).toEqual(
      ['acr', 'amr', 'at_hash', 'aud', 'auth_time', 'azp', 'exp', 'iat', 'iss', 'nonce', 'sub'].sort(),
    );
  });

  test('named claims of approved scopes are placed; others are not, and own claims cannot be replaced', async () => {
    const { idToken } = await issue(['openid', 'email', 'legal_name'], {
      id_token: { email: null, birthdate: null, legal_given_name: { essential: true }, iss: null, acr: null },
    });
    const payload = decodeJwt(idToken!);
    expect(payload.email).toBe('ada@sandbox.example');
    expect(payload.legal_given_name).toBe('Ada Marie');
    // date_of_birth was not approved: asking for birthdate does not widen the consent.
    expect(payload.birthdate).toBeUndefined();
    expect(payload.iss).toBe(ctx.config.server.base_url);
    expect(payload.email_verified).toBeUndefined();
  });

  test('a value that does not match leaves the claim out', async () => {
    const { idToken } = await issue(['openid', 'email'], {
      id_token: { email: { value: 'grace@example.com' } },
    });
    expect(decodeJwt(idToken!).email).toBeUndefined();
  });

  test('verified_claims in the ID token, schema-valid', async () => {
    const { idToken, accessToken } = await issue(IDA_SCOPES, { id_token: { verified_claims: VERIFIED } });
    const payload = decodeJwt(idToken!);
    expect(payload.verified_claims).toEqual(ADA_VERIFIED);
    expect(verifiedClaimsProblems(payload)).toEqual([]);
    // Asked for in the ID token only: UserInfo does not repeat it.
    expect((await userinfo(accessToken)).verified_claims).toBeUndefined();
  });

  test('an ID token sub requested with another value: access_denied, no code', async () => {
    const minted = await mintCode(ctx, app, {
      scopes: ['openid'],
      personId: ADA,
      params: { claims: JSON.stringify({ id_token: { sub: { value: 'somebody-else' } } }) },
    });
    expect(minted.callback.searchParams.get('code')).toBeNull();
    expect(minted.callback.searchParams.get('error')).toBe('access_denied');
  });
});

describe('at UserInfo', () => {
  test('verified_claims added to the scope claims, schema-valid', async () => {
    const { accessToken } = await issue(IDA_SCOPES, { userinfo: { verified_claims: VERIFIED } });
    const info = await userinfo(accessToken);
    expect(info.verified_claims).toEqual(ADA_VERIFIED);
    expect(verifiedClaimsProblems(info)).toEqual([]);
    // The scope claims are still there (Core §5.5: in addition to them).
    expect(info.email).toBe('ada@sandbox.example');
    expect(info.identity_assurance_level).toBe('high');
  });

  test('only what approved scopes cover: no legal_name, no names; no identity_verified, no verified_claims', async () => {
    const noNames = await issue(
      IDA_SCOPES.filter((s) => s !== 'legal_name'),
      { userinfo: { verified_claims: VERIFIED } },
    );
    const info = await userinfo(noNames.accessToken);
    expect((info.verified_claims as { claims: unknown }).claims).toEqual({
      birthdate: '1990-12-10',
      nationalities: ['DE'],
    });
    const unverified = await issue(
      IDA_SCOPES.filter((s) => s !== 'identity_verified'),
      { userinfo: { verified_claims: VERIFIED } },
    );
    expect((await userinfo(unverified.accessToken)).verified_claims).toBeUndefined();
  });

  test('a person without verification data gets no verified_claims, never a made-up one', async () => {
    const { accessToken } = await issueToken(ctx, app, {
      scopes: IDA_SCOPES,
      personId: 'psn_sandbox_cleo',
      params: { claims: JSON.stringify({ userinfo: { verified_claims: VERIFIED } }) },
    });
    const info = await userinfo(accessToken);
    expect(info.verified_claims).toBeUndefined();
    expect(info.identity_verified).toBe(false);
  });

  test('a userinfo claim whose value does not match is left out; without a request, nothing changes', async () => {
    const narrowed = await issue(['openid', 'email'], {
      userinfo: { email: { value: 'grace@example.com' } },
    });
    expect((await userinfo(narrowed.accessToken)).email).toBeUndefined();
    const plain = await issue(['openid', 'email']);
    expect((await userinfo(plain.accessToken)).email).toBe('ada@sandbox.example');
  });
});
