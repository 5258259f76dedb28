import type { AppContext } from '../context.ts';
import { base64url, fromHex } from '../crypto/encoding.ts';
import { signJwt } from '../keys/sign-jwt.ts';
import type { SigningAlg } from '../keys/signing-algs.ts';
import { unix } from '../platform/clock.ts';

export interface IdTokenInput {
  sub: string;
  clientId: string;
  /** The client's `id_token_signed_response_alg`. */
  alg: SigningAlg;
  authTime: number;
  nonce?: string;
  acr: string;
  amr: string[];
  /** The access token, and its SHA-256 in hex (the digest already computed to store it). */
  accessToken: string;
  accessTokenHash: string;
  /** Claims a claims request placed in the ID token (OIDC Core §5.5); the token's own claims win. */
  extra?: Record<string, unknown>;
}

/**
 * OIDC Core §3.1.3.6: the left half of the access token's hash with the `alg`'s hash function, base64url.
 * RS256 and ES256 hash with SHA-256, already computed, so the token endpoint awaits nothing for it;
 * EdDSA with Ed25519 hashes with SHA-512, as the OpenID Foundation's EdDSA guidance and other
 * providers do.
 */
export function atHash(
  alg: SigningAlg,
  accessToken: string,
  accessTokenHash: string,
): string | Promise<string> {
  if (alg !== 'EdDSA') return base64url(fromHex(accessTokenHash.slice(0, 32)));
  return crypto.subtle
    .digest('SHA-512', new TextEncoder().encode(accessToken))
    .then((digest) => base64url(new Uint8Array(digest, 0, 32)));
}

/** The ID token's header `typ`, which a document proof (its own typ) never carries. */
export const ID_TOKEN_TYP = 'JWT';

/**
 * An ID token signed with the active key of the client's algorithm (DESIGN.md §5). Identity data goes
 * to UserInfo unless the request's `claims` parameter places some of it here (`extra`). It lives as
 * long as the access token.
 */
export async function signIdToken(ctx: AppContext, input: IdTokenInput): Promise<string> {
  const iat = unix(ctx.clock);
  const hash = atHash(input.alg, input.accessToken, input.accessTokenHash);
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
    at_hash: typeof hash === 'string' ? hash : await hash,
    acr: input.acr,
    amr: input.amr,
  };
  return signJwt(ctx.keys, ID_TOKEN_TYP, claims, input.alg);
}
