import { compactVerify, createLocalJWKSet, type JSONWebKeySet } from 'jose';
import type { AppContext } from '../context.ts';
import { SIGNING_ALGS } from '../keys/signing-algs.ts';
import { z } from '../zod.ts';
import { ID_TOKEN_TYP } from './id-token.ts';

// zod's mini API: the OAuth router loads this at start (src/zod.ts).
const hintClaims = z.object({
  iss: z.string(),
  sub: z.string().check(z.minLength(1)),
  aud: z.union([z.string(), z.array(z.string()).check(z.minLength(1))]),
});

/**
 * Longer than any ID token Verity signs: a claims request may place the person's photo in one (up to
 * 64 KiB, base64 twice over in the token).
 */
export const MAX_ID_TOKEN_HINT_BYTES = 160 * 1024;

/** Whom an `id_token_hint` names: the pairwise `sub`, for the clients of its audience. */
export interface IdTokenHint {
  sub: string;
  audiences: string[];
}

/**
 * An `id_token_hint` (OIDC Core §3.1.2.1, RP-Initiated Logout §2): an ID token one of Verity's keys
 * signed (of any of its algorithms: a client may have chosen ES256 or EdDSA), for this issuer;
 * undefined for anything else. Its signature only: `exp` is not checked, since a hint usually comes
 * after the token's 15 minutes. The `typ` keeps out what else the same keys sign, a document proof
 * above all, which carries the same `iss`, `aud` and `sub` (RFC 8725 §3.11).
 */
export async function verifiedIdTokenHint(
  ctx: Pick<AppContext, 'config' | 'keys'>,
  token: string,
): Promise<IdTokenHint | undefined> {
  const jwks = createLocalJWKSet(JSON.parse(await ctx.keys.jwksBody()) as JSONWebKeySet);
  let claims: z.infer<typeof hintClaims> | undefined;
  try {
    const { payload, protectedHeader } = await compactVerify(token, jwks, { algorithms: [...SIGNING_ALGS] });
    if (protectedHeader.typ !== ID_TOKEN_TYP) return undefined;
    claims = hintClaims.safeParse(JSON.parse(new TextDecoder().decode(payload))).data;
  } catch {
    return undefined;
  }
  if (claims?.iss !== ctx.config.server.base_url) return undefined;
  return { sub: claims.sub, audiences: typeof claims.aud === 'string' ? [claims.aud] : claims.aud };
}
