import type { RequestedClaims } from '../assurance/claims-request.ts';
import { type VerifiedClaims, verifiedClaimsAnswer } from '../assurance/verified-claims.ts';
import { meets } from '../sdk/element-match.ts';
import type { Claims } from './claims.ts';

/** Claims of the ID token itself: a claims request can neither add nor replace them. */
export const ID_TOKEN_CLAIMS = [
  'iss',
  'sub',
  'aud',
  'exp',
  'iat',
  'auth_time',
  'nonce',
  'azp',
  'at_hash',
  'acr',
  'amr',
];
const OWN = new Set(ID_TOKEN_CLAIMS);

/** Whether a claims request's `id_token` member places anything in the ID token beyond its own claims. */
export const placesIdTokenClaims = (member: RequestedClaims | undefined): member is RequestedClaims =>
  member !== undefined &&
  (member.verifiedClaims !== undefined || Object.keys(member.claims).some((name) => !OWN.has(name)));

/**
 * What one member of a claims request (OIDC Core §5.5) makes of the claims the approved scopes release
 * (`released`: nothing outside them is ever added). UserInfo keeps every released claim, since the
 * `userinfo` member asks for claims "in addition to" the scope ones; the ID token gets only those its
 * member names. Either way a named claim whose value does not meet its `value` or `values` is left
 * out (as OIDC4IDA §5.7.4 does inside `verified_claims`), and `verified_claims` is answered when asked
 * for and `verified` offers it.
 */
export function requestedClaims(
  released: Claims,
  member: RequestedClaims,
  target: 'userinfo' | 'id_token',
  verified: VerifiedClaims | undefined,
  now: Date,
): Record<string, unknown> {
  const out: Record<string, unknown> = target === 'userinfo' ? { ...released } : {};
  for (const [name, request] of Object.entries(member.claims)) {
    if (name === 'sub' || (target === 'id_token' && OWN.has(name))) continue;
    const value = released[name];
    if (value === undefined) continue;
    if (meets(value, request, now)) out[name] = value;
    else delete out[name];
  }
  const answer = verifiedClaimsAnswer(verified, member, now);
  if (answer) out.verified_claims = answer;
  return out;
}
