import { ACCESS_TOKEN_PREFIX } from '../apps/credential-prefixes.ts';
import { storedClaimsRequest } from '../assurance/claims-request.ts';
import type { SecurityEventFields } from '../audit/security-events.ts';
import {
  accessTokenGrant,
  insertAccessToken,
  revokeAccessTokenFromCode,
} from '../auth/access-token.store.ts';
import { grantOf } from '../auth/bearer.ts';
import { isConsentInForce } from '../consent/consent.store.ts';
import type { AppContext } from '../context.ts';
import { locatedSecretId, matchesStoredHash, mintLocatedSecret } from '../crypto/located-secret.ts';
import { OAuthError } from '../errors.ts';
import { subjectFor } from '../keys/pairwise.ts';
import { signIdToken } from '../oidc/id-token.ts';
import { placesIdTokenClaims } from '../oidc/requested-claims.ts';
import { idTokenClaimsFor } from '../oidc/userinfo.ts';
import { unix } from '../platform/clock.ts';
import { enqueueEvent } from '../webhooks/outbox.store.ts';
import type { OAuthClient } from './client.store.ts';
import { type CodeRow, createCodeStore } from './code.store.ts';
import { verifyPkce } from './pkce.ts';

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  id_token?: string;
  scope: string;
}

const invalidGrant = (description: string) => new OAuthError('invalid_grant', description);

/** Why this presentation of the code is not acceptable, or undefined if it is. */
function rejectReason(
  code: CodeRow,
  client: OAuthClient,
  body: Record<string, string>,
  now: number,
): string | undefined {
  if (code.expires_at <= now) return 'The code has expired.';
  if (code.redirect_uri !== body.redirect_uri)
    return 'redirect_uri does not match the authorization request.';
  const verifier = body.code_verifier;
  // Both downgrades are refused (RFC 9700 §4.8.2): a verifier without a challenge, and the reverse.
  if (code.code_challenge === null) {
    if (verifier !== undefined) return 'code_verifier was sent but the request had no code_challenge.';
    if (client.type === 'public') return 'Public clients must use PKCE.';
    return undefined;
  }
  if (verifier === undefined) return 'code_verifier is required for this code.';
  if (!verifyPkce(verifier, code.code_challenge)) return 'code_verifier does not match.';
  return undefined;
}

/**
 * Exchanges an authorization code (RFC 6749 §4.1.3). Every presentation by its own client that is
 * not accepted burns the code and revokes every token already issued from it (§4.1.2: a replayed code
 * means it leaked).
 * Redemption is one conditional UPDATE, so of N concurrent exchanges exactly one wins.
 */
export async function exchangeCode(
  ctx: AppContext,
  client: OAuthClient,
  body: Record<string, string>,
  /** The exchange's log line: the code's person and consent are added once the code is found. */
  event: SecurityEventFields = {},
): Promise<TokenResponse> {
  if (!body.code) throw new OAuthError('invalid_request', 'The code parameter is required.');
  if (!body.redirect_uri) throw new OAuthError('invalid_request', 'The redirect_uri parameter is required.');
  const codes = createCodeStore(ctx.db);
  const codeId = locatedSecretId(body.code);
  const code = codeId === undefined ? undefined : codes.find(codeId);
  // A value naming a real code but not matching it is a guess, not a presentation: it burns nothing.
  if (!code || !matchesStoredHash(body.code, code.code_hash))
    throw invalidGrant('The code is invalid, expired or already used.');
  // Nor does another client's: any public client authenticates without a secret, so burning here
  // would let whoever saw a confidential client's code revoke what it was issued.
  if (code.client_id !== client.clientId) throw invalidGrant('The code was issued to another client.');
  event.personId = code.person_id;
  event.consentId = code.consent_id;
  const now = unix(ctx.clock);

  const issued = JSON.parse(code.scopes) as string[];
  // Scopes taken from the application since the code was issued are granted no more.
  const scopes = issued.filter((s) => client.scopes.includes(s));
  const reason =
    code.used_at !== null
      ? 'The code was already used.'
      : (rejectReason(code, client, body, now) ??
        (scopes.length ? undefined : 'The application may no longer ask for the scopes of this code.'));
  if (reason) {
    ctx.db.sql.transaction(() => {
      codes.redeem(code.id, now, null);
      revokeAccessTokenFromCode(ctx.db, code.id, now);
    });
    throw invalidGrant(reason);
  }

  // Everything async (random token, hashes, pairwise subject, signature) before the transaction.
  const amr = JSON.parse(code.amr) as string[];
  const token = mintLocatedSecret(ctx.clock, ACCESS_TOKEN_PREFIX);
  const sub = await subjectFor(ctx, client.applicationId, code.person_id);
  const sign = (extra?: Record<string, unknown>) =>
    signIdToken(ctx, {
      sub,
      clientId: client.clientId,
      alg: client.idTokenSignedResponseAlg,
      authTime: code.auth_time,
      nonce: code.nonce ?? undefined,
      acr: code.acr,
      amr,
      accessToken: token.value,
      accessTokenHash: token.hash,
      ...(extra ? { extra } : {}),
    });
  // Claims the request places in the ID token are those UserInfo would release for the new token, so
  // they are read once it exists; without a claims request nothing more is read or computed.
  const placed = code.claims === null ? undefined : storedClaimsRequest(code.claims)?.id_token;
  const openid = scopes.includes('openid');
  let idToken = openid && !placesIdTokenClaims(placed) ? await sign() : undefined;
  const ttl = Math.floor(ctx.config.oauth.token_ttl / 1000);

  // Group-committed with the other exchanges of this turn; resolves only once committed.
  const outcome = await ctx.db.batch((): string | undefined => {
    if (!codes.redeem(code.id, now, token.id)) {
      // Lost the race or replayed: whatever was issued from this code is now suspect.
      revokeAccessTokenFromCode(ctx.db, code.id, now);
      return 'The code was already used.';
    }
    if (!isConsentInForce(ctx.db, code.consent_id, now)) return 'The consent is no longer active.';
    insertAccessToken(ctx.db, {
      id: token.id,
      token_hash: token.hash,
      environment_id: code.environment_id,
      consent_id: code.consent_id,
      person_id: code.person_id,
      scopes: scopes.length === issued.length ? code.scopes : JSON.stringify(scopes),
      acr: code.acr,
      liveness_verified: code.liveness_verified,
      face_match_verified: code.face_match_verified,
      claims: code.claims,
      created_at: now,
      expires_at: now + ttl,
    });
    enqueueEvent(ctx, {
      type: 'oauth.authorization.completed',
      applicationId: client.applicationId,
      environment: client.environment,
      data: {
        applicationId: client.applicationId,
        environment: client.environment,
        sub,
        scopes,
        authTime: code.auth_time,
        acr: code.acr,
      },
    });
    return undefined;
  });
  if (outcome) throw invalidGrant(outcome);
  if (openid && placesIdTokenClaims(placed)) {
    const row = accessTokenGrant(ctx.db, token.id, now);
    idToken = await sign(row ? await idTokenClaimsFor(ctx, grantOf(row), placed) : undefined);
  }

  return {
    access_token: token.value,
    token_type: 'Bearer',
    expires_in: ttl,
    ...(idToken ? { id_token: idToken } : {}),
    scope: scopes.join(' '),
  };
}
