import { describe, expect, test } from 'bun:test';
import { parseClaimsRequest } from '../../src/assurance/claims-request.ts';
import { authorizationUrl, claimsParameter, createTransaction } from '../../src/sdk/index.ts';
import { SPEC_EXAMPLES, validClaimsRequest } from '../assurance/ida-schema.ts';

/** The SDK's claims-parameter builder writes what the specification's examples write, and Verity accepts it. */

describe('claimsParameter', () => {
  test('the specification examples, built from their short forms', () => {
    const claims = ['given_name', 'family_name', 'birthdate'];
    expect(JSON.parse(claimsParameter({ userinfo: { verifiedClaims: { claims } } }))).toEqual(
      SPEC_EXAMPLES.claims,
    );
    expect(JSON.parse(claimsParameter({ userinfo: { verifiedClaims: { time: true, claims } } }))).toEqual(
      SPEC_EXAMPLES.verification,
    );
    expect(
      JSON.parse(
        claimsParameter({
          userinfo: { verifiedClaims: { trustFramework: ['gold', 'silver'], claims: claims.slice(0, 2) } },
        }),
      ),
    ).toEqual(SPEC_EXAMPLES.verification_claims_different_trust_frameworks);
    expect(
      JSON.parse(
        claimsParameter({
          userinfo: {
            verifiedClaims: [
              { trustFramework: 'eidas', assuranceLevel: 'high', claims: ['given_name', 'family_name'] },
              { trustFramework: 'eidas', assuranceLevel: ['high', 'substantial'], claims: ['birthdate'] },
            ],
          },
        }),
      ),
    ).toEqual(SPEC_EXAMPLES.verification_claims_by_trust_frameworks);
    expect(
      JSON.parse(
        claimsParameter({ idToken: { claims: ['given_name'], verifiedClaims: { claims: ['family_name'] } } }),
      ),
    ).toEqual(SPEC_EXAMPLES.simple_id_token);
  });

  test('whatever it builds is valid against the request schema and accepted by Verity', () => {
    const text = claimsParameter({
      userinfo: {
        claims: { email: { essential: true } },
        verifiedClaims: {
          assuranceLevel: true,
          time: { maxAge: 86400 * 365 },
          documentEvidence: { details: ['type', 'document_number', 'issuer'], documentTypes: ['passport'] },
          claims: ['given_name'],
        },
      },
      idToken: { verifiedClaims: { trustFramework: 'verity_sandbox', claims: [] } },
    });
    expect(validClaimsRequest(JSON.parse(text))).toBe(true);
    expect(parseClaimsRequest(text).ok).toBe(true);
  });

  test('authorizationUrl carries it, as text or as an object', async () => {
    const tx = createTransaction({ sessionId: 's', redirectUri: 'https://app.example/cb', display: 'page' });
    const claims = { id_token: { email: null } };
    for (const value of [claims, JSON.stringify(claims)]) {
      const url = new URL(
        await authorizationUrl({
          authorizationEndpoint: 'https://id.example/v1/oauth/authorize',
          clientId: 'cid_test_x',
          transaction: tx,
          scope: 'openid email',
          claims: value,
        }),
      );
      expect(JSON.parse(url.searchParams.get('claims')!)).toEqual(claims);
    }
  });
});
