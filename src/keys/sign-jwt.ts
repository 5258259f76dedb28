import type { KeyObject } from 'node:crypto';
import { base64url } from '../crypto/encoding.ts';
import { signEd25519, signEs256 } from '../platform/jws-sign.ts';
import { runtime } from '../platform/runtime.ts';
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

const SIGN: Record<SigningAlg, (key: KeyObject, input: string) => string> = {
  // Read at each call: `runtime` holds the native RS256 signer when one loaded.
  RS256: (key, input) => runtime.signRs256(key, input),
  ES256: signEs256,
  EdDSA: signEd25519,
};

/**
 * A compact JWS of `claims`, signed with the active key of `alg` and naming its `kid` and the given
 * `typ`. Put together here rather than by jose's SignJWT so that the signature is a synchronous native
 * one (`platform/rs256.ts`, `platform/jws-sign.ts`; the token endpoint is bound by it); tests verify
 * every JWT with jose.
 */
export async function signJwt(
  keys: KeyService,
  typ: string,
  claims: object,
  alg: SigningAlg = 'RS256',
): Promise<string> {
  const { kid, key } = await keys.signingKey(alg);
  const signingInput = `${encodedHeader(typ, alg, kid)}.${base64url(JSON.stringify(claims))}`;
  return `${signingInput}.${SIGN[alg](key, signingInput)}`;
}
