import { createLocalJWKSet, decodeProtectedHeader, errors, type JSONWebKeySet, jwtVerify } from 'jose';
import { type SdkClock, systemClock } from './clock.ts';
import { DocumentProofError, quoted } from './errors.ts';
import { MAX_SKEW_SECONDS } from './id-token.ts';
import type { JwksCache } from './jwks.ts';
import type { IdentityDocument, Verification } from './types.ts';

/**
 * The `typ` of a document proof (RFC 8725 §3.11): an ID token (`typ` `JWT`) is never taken for a
 * proof, nor a proof for an ID token.
 */
export const DOCUMENT_PROOF_TYP = 'verity-document-proof+jwt';

/** A verified document proof's claims. */
export interface DocumentProofClaims {
  iss: string;
  /** The pairwise subject, the same `sub` as in this application's ID tokens. */
  sub: string;
  /** The Client ID of the application the proof was issued to. */
  aud: string;
  iat: number;
  exp: number;
  /** Unique per proof. */
  jti: string;
  /** Exactly the fields the document detail returned under the consent. */
  document: IdentityDocument;
  /** With `identity_verified` approved: the OIDC4IDA `verification` with this document as evidence. */
  verification?: Verification;
  [claim: string]: unknown;
}

export interface VerifyDocumentProofOptions {
  /**
   * The issuer's key set: a JWKS document fetched earlier and kept (`{ keys: [...] }`), so verification
   * needs no network, or the SDK's `createJwksCache`.
   */
  jwks: JSONWebKeySet | JwksCache;
  /** The application's Client ID: a proof issued to another application is refused. */
  clientId: string;
  /** The `issuer` of the discovery document. */
  issuer: string;
  clock?: SdkClock;
}

/**
 * Verifies a document proof offline: RS256 only, `typ` `verity-document-proof+jwt`, the key named by
 * `kid` in the JWKS, `iss`, `aud`, and `exp` and `iat` with at most 60 s of skew. A proof stays valid
 * until its `exp` even if the consent has been revoked since; ask the API for the current state.
 */
export async function verifyDocumentProof(
  jwt: string,
  opts: VerifyDocumentProofOptions,
): Promise<DocumentProofClaims> {
  const now = (opts.clock ?? systemClock).now();
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(jwt);
  } catch {
    throw new DocumentProofError('proof_malformed', 'document proof is not a JWS');
  }
  // Decided before any key is looked up, so `none`/HS256 proofs and ID tokens never reach verification.
  if (header.alg !== 'RS256')
    throw new DocumentProofError('proof_alg', `document proof alg must be RS256, got ${quoted(header.alg)}`);
  if (header.typ !== DOCUMENT_PROOF_TYP)
    throw new DocumentProofError(
      'proof_typ',
      `not a document proof: typ is ${quoted(header.typ)}, not ${DOCUMENT_PROOF_TYP}`,
    );
  if (typeof header.kid !== 'string' || header.kid === '')
    throw new DocumentProofError('proof_kid', 'document proof header has no kid');
  let payload: Record<string, unknown>;
  try {
    const key = await keyFor(opts.jwks, header.kid);
    ({ payload } = await jwtVerify(jwt, key, {
      algorithms: ['RS256'],
      issuer: opts.issuer,
      audience: opts.clientId,
      clockTolerance: MAX_SKEW_SECONDS,
      currentDate: now,
      requiredClaims: ['iss', 'sub', 'aud', 'exp', 'iat', 'jti'],
    }));
  } catch (e) {
    throw mapJoseError(e);
  }
  if (typeof payload.iat !== 'number' || payload.iat > Math.floor(now.getTime() / 1000) + MAX_SKEW_SECONDS)
    throw new DocumentProofError('proof_iat', 'document proof iat is in the future');
  const doc = payload.document as Partial<IdentityDocument> | undefined;
  if (typeof doc !== 'object' || doc === null || typeof doc.documentReference !== 'string')
    throw new DocumentProofError('proof_claims', 'document proof has no document');
  return payload as DocumentProofClaims;
}

/** A JWKS document becomes jose's local key set: an unknown kid surfaces as JWKSNoMatchingKey. */
async function keyFor(jwks: JSONWebKeySet | JwksCache, kid: string) {
  if (!('getKey' in jwks)) return createLocalJWKSet(jwks);
  const key = await jwks.getKey(kid);
  if (!key) throw new DocumentProofError('proof_kid', `no RS256 key with kid ${quoted(kid)} in the JWKS`);
  return key;
}

function mapJoseError(e: unknown): DocumentProofError {
  if (e instanceof DocumentProofError) return e;
  if (e instanceof errors.JWKSInvalid)
    return new DocumentProofError('proof_kid', 'the JWKS is not a key set');
  if (e instanceof errors.JWKSNoMatchingKey || e instanceof errors.JWKSMultipleMatchingKeys)
    return new DocumentProofError('proof_kid', 'no single RS256 key with this kid in the JWKS');
  if (e instanceof errors.JWTExpired)
    return new DocumentProofError('proof_expired', 'document proof has expired');
  if (e instanceof errors.JWTClaimValidationFailed) {
    if (e.claim === 'iss')
      return new DocumentProofError('proof_iss', 'document proof iss is not the expected issuer');
    if (e.claim === 'aud')
      return new DocumentProofError('proof_aud', 'document proof was issued to another client');
    return new DocumentProofError('proof_claims', `document proof claim ${e.claim} is invalid: ${e.reason}`);
  }
  if (e instanceof errors.JWSSignatureVerificationFailed)
    return new DocumentProofError('proof_signature', 'document proof signature does not verify');
  if (e instanceof errors.JWTInvalid || e instanceof errors.JWSInvalid)
    return new DocumentProofError('proof_malformed', 'document proof is malformed');
  return new DocumentProofError('proof_signature', 'document proof could not be verified');
}
