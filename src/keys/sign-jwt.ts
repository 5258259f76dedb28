import { base64url } from '../crypto/encoding.ts';
import type { SigningAlg } from './signing-algs.ts';
import type { KeyService } from './signing-keys.ts';

// The encoded protected header depends only on typ and kid (a key has one algorithm): a memo of
// constants, shared by every context.
const headers = new Map<string, Map<string, string>>();
function encodedHeader(typ: string, alg: SigningAlg, kid: string): string {
  let byKid = headers.get(typ);
  if (!byKid) {
    byKid = new Map();
    headers.set(typ, byKid);
  }
  let h = byKid.get(kid);
  if (!h) {
    h = base64url(JSON.stringify({ alg, kid, typ }));
    byKid.set(kid, h);
  }
  return h;
}

/**
 * A compact JWS of `claims`, signed with the active key of `alg` and naming its `kid` and the given
 * `typ`. Put together here rather than by jose's SignJWT so that the signature is a native one
 * (`KeyService.sign`: RS256 on a signing thread, the token endpoint being bound by it). Tests verify
 * every JWT with jose and openid-client.
 */
export async function signJwt(
  keys: KeyService,
  typ: string,
  claims: object,
  alg: SigningAlg = 'RS256',
): Promise<string> {
  const key = await keys.signingKey(alg);
  const signingInput = `${encodedHeader(typ, alg, key.kid)}.${base64url(JSON.stringify(claims))}`;
  return `${signingInput}.${await keys.sign(key, signingInput)}`;
}
