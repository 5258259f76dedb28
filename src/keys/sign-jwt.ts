import { base64url } from '../crypto/encoding.ts';
import { runtime } from '../platform/runtime.ts';
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
 * Put together here rather than by jose's SignJWT so that the signature is the synchronous native one
 * of `platform/rs256.ts` (the token endpoint is bound by it); tests verify every JWT with jose.
 */
export async function signJwt(keys: KeyService, typ: string, claims: object): Promise<string> {
  const { kid, key } = await keys.signingKey();
  const signingInput = `${encodedHeader(typ, kid)}.${base64url(JSON.stringify(claims))}`;
  return `${signingInput}.${runtime.signRs256(key, signingInput)}`;
}
