import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createLocalJWKSet, exportJWK, generateKeyPair, type JSONWebKeySet, jwtVerify, SignJWT } from 'jose';
import { base64url } from '../../src/crypto/encoding.ts';
import { fixedClock } from '../../src/platform/clock.ts';
import {
  createJwksCache,
  DOCUMENT_PROOF_TYP,
  DocumentProofError,
  getDocumentProof,
  verifyDocumentProof,
} from '../../src/sdk/index.ts';
import { createTestApp } from '../helpers/apps.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { REDIRECT } from '../oauth/fixtures.ts';
import { issueToken, setDocumentPolicy } from '../userinfo/fixtures.ts';

const DAY = 86_400_000;
const START = Date.UTC(2026, 5, 1, 12);
const SCOPES = [
  'openid',
  'identity_documents',
  'identity_verified',
  'document_type',
  'document_issuing_country',
];

let server: TestServer;
let issuer: string;
let clientId: string;
let reference: string;
let proof: string;
let idToken: string;
let jwks: JSONWebKeySet;

// A real server issues the proof and publishes its keys over HTTP; every check below runs after it stopped.
beforeAll(async () => {
  server = await startTestServer({ clock: fixedClock(START) });
  issuer = server.ctx.config.server.base_url;
  const app = await createTestApp(server.ctx, {
    type: 'confidential',
    redirectUris: [REDIRECT],
    scopes: SCOPES,
  });
  setDocumentPolicy(server.ctx, app, ['id_card'], ['FR']);
  clientId = app.clientId;
  const issued = await issueToken(server.ctx, app, { scopes: SCOPES, personId: 'psn_sandbox_ben' });
  idToken = issued.idToken!;
  const list = await fetch(`${issuer}/v1/userinfo/identity-documents`, {
    headers: { authorization: `Bearer ${issued.accessToken}` },
  });
  reference = ((await list.json()) as any).data.documents[0].documentReference;
  proof = await getDocumentProof({
    baseUrl: issuer,
    accessToken: issued.accessToken,
    documentReference: reference,
  });
  jwks = (await (await fetch(`${issuer}/.well-known/jwks.json`)).json()) as JSONWebKeySet;
  await server.stop();
});
afterAll(() => server?.stop().catch(() => {}));

const at = (ms: number) => fixedClock(ms);
const opts = (over: Partial<Parameters<typeof verifyDocumentProof>[1]> = {}) => ({
  jwks,
  clientId,
  issuer,
  clock: at(START + DAY),
  ...over,
});

async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(DocumentProofError);
    return (e as DocumentProofError).code;
  }
  throw new Error('expected a refusal');
}

describe('verified offline after the server is stopped', () => {
  test('with plain jose and the JWKS fetched earlier', async () => {
    await expect(fetch(`${issuer}/.well-known/jwks.json`)).rejects.toThrow();
    const { payload, protectedHeader } = await jwtVerify(proof, createLocalJWKSet(jwks), {
      issuer,
      audience: clientId,
      typ: 'verity-document-proof+jwt',
      algorithms: ['RS256'],
      currentDate: new Date(START + DAY),
    });
    expect(protectedHeader.typ).toBe(DOCUMENT_PROOF_TYP);
    expect(payload.document).toMatchObject({
      documentReference: reference,
      documentType: 'id_card',
      issuingCountry: 'FR',
    });
  });

  test('with verifyDocumentProof, a JWKS document or the SDK cache', async () => {
    const claims = await verifyDocumentProof(proof, opts());
    expect(claims).toMatchObject({ iss: issuer, aud: clientId, document: { documentReference: reference } });
    expect(claims.exp - claims.iat).toBe(30 * 86_400);
    expect(claims.verification).toMatchObject({
      trust_framework: 'verity_sandbox',
      evidence: [{ type: 'document' }],
    });

    const body = JSON.stringify(jwks);
    const cache = createJwksCache({
      jwksUri: `${issuer}/.well-known/jwks.json`,
      fetch: async () => new Response(body),
    });
    expect((await verifyDocumentProof(proof, opts({ jwks: cache }))).jti).toBe(claims.jti);
    // Valid right up to exp plus the 60 s of skew.
    await verifyDocumentProof(proof, opts({ clock: at(START + 30 * DAY + 59_000) }));
  });
});

describe('verifyDocumentProof refuses', () => {
  test('an ID token of the same issuer and client (typ JWT)', async () => {
    expect(await refusal(verifyDocumentProof(idToken, opts()))).toBe('proof_typ');
  });

  test('another audience, another issuer', async () => {
    expect(await refusal(verifyDocumentProof(proof, opts({ clientId: 'cid_test_other' })))).toBe('proof_aud');
    expect(await refusal(verifyDocumentProof(proof, opts({ issuer: 'https://other.example' })))).toBe(
      'proof_iss',
    );
  });

  test('an expired proof, and one issued in the future', async () => {
    expect(await refusal(verifyDocumentProof(proof, opts({ clock: at(START + 30 * DAY + 60_000) })))).toBe(
      'proof_expired',
    );
    expect(await refusal(verifyDocumentProof(proof, opts({ clock: at(START - 61_000) })))).toBe('proof_iat');
  });

  test('a kid the JWKS does not hold (a key set from before, or after the key was dropped)', async () => {
    const { publicKey } = await generateKeyPair('RS256');
    const other = { keys: [{ ...(await exportJWK(publicKey)), kid: 'other', alg: 'RS256', use: 'sig' }] };
    expect(await refusal(verifyDocumentProof(proof, opts({ jwks: other })))).toBe('proof_kid');
    const cache = createJwksCache({
      jwksUri: `${issuer}/.well-known/jwks.json`,
      fetch: async () => new Response(JSON.stringify(other)),
    });
    expect(await refusal(verifyDocumentProof(proof, opts({ jwks: cache })))).toBe('proof_kid');
  });

  test('a changed payload, a key of its own under the right kid, alg none or HS256', async () => {
    const [h, p, s] = proof.split('.');
    const claims = JSON.parse(new TextDecoder().decode(Uint8Array.fromBase64(p!, { alphabet: 'base64url' })));
    const widened = base64url(
      JSON.stringify({ ...claims, document: { ...claims.document, documentNumber: 'X1' } }),
    );
    expect(await refusal(verifyDocumentProof(`${h}.${widened}.${s}`, opts()))).toBe('proof_signature');

    const kid = jwks.keys[0]!.kid!;
    const { privateKey } = await generateKeyPair('RS256');
    const forged = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid, typ: DOCUMENT_PROOF_TYP })
      .sign(privateKey);
    expect(await refusal(verifyDocumentProof(forged, opts()))).toBe('proof_signature');

    const none = `${base64url(JSON.stringify({ alg: 'none', kid, typ: DOCUMENT_PROOF_TYP }))}.${p}.`;
    expect(await refusal(verifyDocumentProof(none, opts()))).toBe('proof_alg');
    const hs = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', kid, typ: DOCUMENT_PROOF_TYP })
      .sign(new TextEncoder().encode('k'.repeat(32)));
    expect(await refusal(verifyDocumentProof(hs, opts()))).toBe('proof_alg');
    expect(await refusal(verifyDocumentProof('not.a.jwt', opts()))).toBe('proof_malformed');
  });
});
