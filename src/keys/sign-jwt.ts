import { base64url } from '../crypto/encoding.ts';
import type { KeyService } from './signing-keys.ts';

// The encoded protected header depends only on typ and kid: a memo of constants, shared by every context.
const headers = new Map<string, Map<string, string>>();
function encodedHeader(typ: string, kid: string): string {
  let byKid = headers.get(typ);
  if (!byKid) {
    byKid = new Map();
    headers.set(typ, byKid);
  }
  let h = byKid.get(kid);
  if (!h) {
    h = base64url(JSON.stringify({ alg: 'RS256', kid, typ }));
    byKid.set(kid, h);
  }
  return h;
}

/**
 * A compact RS256 JWS of `claims`, signed with the active key and naming its `kid` and the given `typ`.
 * Put together here rather than by jose's SignJWT so that the signature is the native one of
 * `platform/rs256.ts`, made on a signing thread (`platform/signing-pool.ts`): the token endpoint is
 * bound by it. Tests verify every JWT with jose and openid-client.
 */
export async function signJwt(keys: KeyService, typ: string, claims: object): Promise<string> {
  const key = await keys.signingKey();
  const signingInput = `${encodedHeader(typ, key.kid)}.${base64url(JSON.stringify(claims))}`;
  return `${signingInput}.${await keys.sign(key, signingInput)}`;
}
