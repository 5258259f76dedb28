import { decodeProtectedHeader, errors, jwtVerify } from 'jose';
import { type SdkClock, systemClock } from './clock.ts';
import { IdTokenError, quoted } from './errors.ts';
import type { JwksCache } from './jwks.ts';
import { base64url, timingSafeEqual } from './random.ts';

/** The ID token's claims as Verity issues them; identity data is in UserInfo, not here. */
export interface IdTokenClaims {
  iss: string;
  /** Pairwise subject: the application's account key for this person. */
  sub: string;
  aud: string | string[];
  exp: number;
  iat: number;
  auth_time: number;
  nonce: string;
  azp?: string;
  at_hash?: string;
  /** The identity assurance level reached. */
  acr?: string;
  amr?: string[];
  [claim: string]: unknown;
}

/** The ID-token algorithms Verity signs with; an application registers one (RS256 unless it chose). */
export type IdTokenAlg = 'RS256' | 'ES256' | 'EdDSA';

export interface ValidateIdTokenOptions {
  /** The `issuer` of the discovery document. */
  issuer: string;
  /** The application's Client ID. */
  clientId: string;
  /** The nonce stored in the transaction. */
  nonce: string;
  /** The access token issued with the ID token: its `at_hash`, when present, must match it. */
  accessToken?: string;
  jwks: JwksCache;
  clock?: SdkClock;
  /** The application's registered algorithm; default RS256. Tokens of any other alg are refused. */
  alg?: IdTokenAlg;
  /** The `max_age` the authorization request sent, in seconds: an older `auth_time` is refused. */
  maxAge?: number;
  /** When a sign-in with `prompt=login` started: an `auth_time` before it (a reused session) is refused. */
  signedInSince?: Date;
}

/** The interface's limit on clock skew for `exp`, `iat` and `auth_time`. */
export const MAX_SKEW_SECONDS = 60;

/**
 * Validates an ID token exactly as the interface requires: the registered alg only (RS256 unless the
 * application chose ES256 or EdDSA), key chosen by `kid` from the
 * cached JWKS, `iss`, `aud` (and `azp` when present or when there are several audiences), `exp`,
 * `iat` and `auth_time` with at most 60 s of skew, `nonce` compared in constant time, and `at_hash`
 * when present.
 */
export async function validateIdToken(idToken: string, opts: ValidateIdTokenOptions): Promise<IdTokenClaims> {
  const now = (opts.clock ?? systemClock).now();
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(idToken);
  } catch {
    throw new IdTokenError('id_token_malformed', 'ID token is not a JWS');
  }
  // Decided before any key is looked up, so `none`/HS256 tokens never reach verification.
  const alg = opts.alg ?? 'RS256';
  if (header.alg !== alg)
    throw new IdTokenError('id_token_alg', `ID token alg must be ${alg}, got ${quoted(header.alg)}`);
  if (typeof header.kid !== 'string' || header.kid === '')
    throw new IdTokenError('id_token_kid', 'ID token header has no kid');
  const key = await opts.jwks.getKey(header.kid, alg);
  if (!key)
    throw new IdTokenError('id_token_kid', `no ${alg} key with kid ${quoted(header.kid)} in the JWKS`);

  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(idToken, key, {
      algorithms: [alg],
      issuer: opts.issuer,
      audience: opts.clientId,
      clockTolerance: MAX_SKEW_SECONDS,
      currentDate: now,
      requiredClaims: ['iss', 'sub', 'aud', 'exp', 'iat', 'auth_time', 'nonce'],
    }));
  } catch (e) {
    throw mapJoseError(e);
  }

  const nowSeconds = Math.floor(now.getTime() / 1000);
  if (typeof payload.iat !== 'number' || payload.iat > nowSeconds + MAX_SKEW_SECONDS)
    throw new IdTokenError('id_token_iat', 'ID token iat is in the future');
  if (typeof payload.auth_time !== 'number' || payload.auth_time > nowSeconds + MAX_SKEW_SECONDS)
    throw new IdTokenError('id_token_auth_time', 'ID token auth_time is missing or in the future');
  // OIDC Core §3.1.3.7: with max_age asked for, the sign-in must be that recent (the same skew).
  if (opts.maxAge !== undefined && payload.auth_time + opts.maxAge + MAX_SKEW_SECONDS < nowSeconds)
    throw new IdTokenError('id_token_auth_time', `ID token auth_time is older than max_age ${opts.maxAge}`);
  if (opts.signedInSince && payload.auth_time + MAX_SKEW_SECONDS < opts.signedInSince.getTime() / 1000)
    throw new IdTokenError(
      'id_token_auth_time',
      'ID token auth_time is before this sign-in, which asked for prompt=login',
    );
  if (typeof payload.sub !== 'string' || payload.sub === '')
    throw new IdTokenError('id_token_claims', 'ID token has no sub');
  // The interface: aud must equal the client ID, so no other audience rides along (Verity names one).
  const aud = payload.aud;
  if (!(aud === opts.clientId || (Array.isArray(aud) && aud.length === 1 && aud[0] === opts.clientId)))
    throw new IdTokenError('id_token_aud', 'ID token aud is not exactly this client');
  // OIDC Core §3.1.3.7: an azp present must name this client.
  if (payload.azp !== undefined && payload.azp !== opts.clientId)
    throw new IdTokenError('id_token_azp', 'ID token azp is not this client');
  if (typeof payload.nonce !== 'string' || !(await timingSafeEqual(payload.nonce, opts.nonce)))
    throw new IdTokenError('id_token_nonce', 'ID token nonce does not match the transaction');
  // Verity always sends at_hash (DESIGN.md §5): an ID token without one is not bound to this token.
  if (opts.accessToken !== undefined) {
    if (
      typeof payload.at_hash !== 'string' ||
      !(await timingSafeEqual(payload.at_hash, await atHash(opts.accessToken, alg)))
    )
      throw new IdTokenError('id_token_at_hash', 'ID token at_hash does not match the access token');
  }
  return payload as IdTokenClaims;
}

/**
 * OIDC Core §3.1.3.6: the left half of the alg's hash of the token's ASCII, base64url: SHA-256 for
 * RS256 and ES256, SHA-512 for EdDSA (Ed25519).
 */
async function atHash(accessToken: string, alg: IdTokenAlg): Promise<string> {
  const hash = alg === 'EdDSA' ? 'SHA-512' : 'SHA-256';
  const digest = await crypto.subtle.digest(hash, new TextEncoder().encode(accessToken));
  return base64url(new Uint8Array(digest, 0, digest.byteLength / 2));
}

function mapJoseError(e: unknown): IdTokenError {
  if (e instanceof errors.JWTExpired) return new IdTokenError('id_token_expired', 'ID token has expired');
  if (e instanceof errors.JWTClaimValidationFailed) {
    if (e.claim === 'iss') return new IdTokenError('id_token_iss', 'ID token iss is not the expected issuer');
    if (e.claim === 'aud') return new IdTokenError('id_token_aud', 'ID token aud is not this client');
    if (e.claim === 'iat') return new IdTokenError('id_token_iat', 'ID token iat is invalid');
    return new IdTokenError('id_token_claims', `ID token claim ${e.claim} is invalid: ${e.reason}`);
  }
  if (e instanceof errors.JWSSignatureVerificationFailed)
    return new IdTokenError('id_token_signature', 'ID token signature does not verify');
  if (e instanceof errors.JOSEAlgNotAllowed)
    return new IdTokenError('id_token_alg', 'ID token alg is not the registered one');
  if (e instanceof errors.JWTInvalid || e instanceof errors.JWSInvalid)
    return new IdTokenError('id_token_malformed', 'ID token is malformed');
  return new IdTokenError('id_token_signature', 'ID token could not be verified');
}
