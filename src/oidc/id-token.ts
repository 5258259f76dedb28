import { SignJWT } from 'jose';
import type { AppContext } from '../context.ts';
import { sha256BytesSync } from '../crypto/digest.ts';
import { base64url } from '../crypto/encoding.ts';
import { unix } from '../platform/clock.ts';

export interface IdTokenInput {
  sub: string;
  clientId: string;
  authTime: number;
  nonce?: string;
  acr: string;
  amr: string[];
  accessToken: string;
}

/** OIDC Core §3.1.3.6: the left half of the SHA-256 of the access token, base64url. */
export function atHash(accessToken: string): string {
  return base64url(sha256BytesSync(accessToken).slice(0, 16));
}

/**
 * An RS256 ID token signed with the active key (DESIGN.md §5). Identity data is not in it: that goes
 * to UserInfo. It lives as long as the access token.
 */
export async function signIdToken(ctx: AppContext, input: IdTokenInput): Promise<string> {
  const { kid, key } = await ctx.keys.signingKey();
  const hash = atHash(input.accessToken);
  const iat = unix(ctx.clock);
  return new SignJWT({
    auth_time: input.authTime,
    ...(input.nonce === undefined ? {} : { nonce: input.nonce }),
    azp: input.clientId,
    at_hash: hash,
    acr: input.acr,
    amr: input.amr,
  })
    .setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' })
    .setIssuer(ctx.config.server.base_url)
    .setSubject(input.sub)
    .setAudience(input.clientId)
    .setIssuedAt(iat)
    .setExpirationTime(iat + Math.floor(ctx.config.oauth.token_ttl / 1000))
    .sign(key);
}
