import type { KeyObject } from 'node:crypto';
import type { AppContext } from '../context.ts';
import { base64url, fromHex } from '../crypto/encoding.ts';
import type { SigningAlg } from '../keys/signing-algs.ts';
import { unix } from '../platform/clock.ts';
import { signEd25519, signEs256 } from '../platform/jws-sign.ts';
import { runtime } from '../platform/runtime.ts';

export interface IdTokenInput {
  sub: string;
  clientId: string;
  /** The client's `id_token_signed_response_alg`. */
  alg: SigningAlg;
  authTime: number;
  nonce?: string;
  acr: string;
  amr: string[];
  /** SHA-256 of the access token, hex: the digest already computed to store it. */
  accessTokenHash: string;
  /** Claims a claims request placed in the ID token (OIDC Core §5.5); the token's own claims win. */
  extra?: Record<string, unknown>;
}

/** OIDC Core §3.1.3.6: the left half of the access token's SHA-256, base64url. */
export function atHash(accessTokenHash: string): string {
  return base64url(fromHex(accessTokenHash.slice(0, 32)));
}

// The encoded protected header depends only on the kid (a key has one algorithm): a memo of
// constants, shared by every context.
const headers = new Map<string, string>();
function encodedHeader(alg: SigningAlg, kid: string): string {
  let h = headers.get(kid);
  if (!h) {
    h = base64url(JSON.stringify({ alg, kid, typ: 'JWT' }));
    headers.set(kid, h);
  }
  return h;
}

const SIGN: Record<SigningAlg, (key: KeyObject, input: string) => string> = {
  // Read at each call: `runtime` picks the native signer once it has loaded.
  RS256: (key, input) => runtime.signRs256(key, input),
  ES256: signEs256,
  EdDSA: signEd25519,
};

/**
 * An ID token signed with the active key of the client's algorithm (DESIGN.md §5). Identity data goes
 * to UserInfo unless the request's `claims` parameter places some of it here (`extra`). It lives as
 * long as the access token.
 *
 * The compact JWS is put together here rather than by jose's SignJWT so that the signature is a
 * synchronous native one (`platform/rs256.ts`, `platform/jws-sign.ts`; the token endpoint is bound by
 * it); tests verify every token with jose and openid-client.
 */
export async function signIdToken(ctx: AppContext, input: IdTokenInput): Promise<string> {
  const { kid, alg, key } = await ctx.keys.signingKey(input.alg);
  const iat = unix(ctx.clock);
  const claims = {
    ...input.extra,
    iss: ctx.config.server.base_url,
    sub: input.sub,
    aud: input.clientId,
    exp: iat + Math.floor(ctx.config.oauth.token_ttl / 1000),
    iat,
    auth_time: input.authTime,
    ...(input.nonce === undefined ? {} : { nonce: input.nonce }),
    azp: input.clientId,
    at_hash: atHash(input.accessTokenHash),
    acr: input.acr,
    amr: input.amr,
  };
  const signingInput = `${encodedHeader(alg, kid)}.${base64url(JSON.stringify(claims))}`;
  return `${signingInput}.${SIGN[alg](key, signingInput)}`;
}
