import type { ClaimsRequest, ClaimsRequestMember } from './claims-parameter.ts';

/** The keys of one claim's request (`{ essential, value, values, max_age }`), as against nested elements. */
const REQUEST_KEYS = new Set(['essential', 'value', 'values', 'max_age', 'purpose']);

/**
 * Whether `got` meets every `value`, `values` and `max_age` that `asked` sets, at any depth of a
 * `verified_claims` request; a list of requests (`evidence`) is met when each element returned meets
 * one of them. A constrained element that is missing does not meet its constraint.
 */
function meets(asked: unknown, got: unknown, nowSeconds: number): boolean {
  if (asked === null || typeof asked !== 'object') return true;
  if (Array.isArray(asked))
    return (
      got === undefined ||
      (Array.isArray(got) && got.every((g) => asked.some((a) => meets(a, g, nowSeconds))))
    );
  const request = asked as Record<string, unknown>;
  if (Object.keys(request).every((k) => REQUEST_KEYS.has(k))) {
    const {
      value,
      values,
      max_age: maxAge,
    } = request as { value?: unknown; values?: unknown[]; max_age?: number };
    if (value !== undefined && got !== value) return false;
    if (values !== undefined && !values.includes(got)) return false;
    if (maxAge !== undefined) return typeof got === 'string' && nowSeconds - Date.parse(got) / 1000 <= maxAge;
    return true;
  }
  if (got === undefined) return true;
  if (got === null || typeof got !== 'object') return false;
  return Object.entries(request).every(([k, v]) => meets(v, (got as Record<string, unknown>)[k], nowSeconds));
}

const asList = <T>(v: T | T[]): T[] => (Array.isArray(v) ? v : [v]);

/** The `claims` parameter as the transaction kept it (its JSON text), or undefined. */
export function parseClaimsRequest(claims: string | ClaimsRequest | undefined): ClaimsRequest | undefined {
  return typeof claims === 'string' ? (JSON.parse(claims) as ClaimsRequest) : claims;
}

/**
 * What came back (ID token claims, UserInfo), held to what the sign-in asked for: the request rides in
 * the authorization URL, which the person can edit, so a constraint they removed would go unchecked
 * (docs/integration.md, "What the SDK checks"). A claim that does not meet its request is dropped, as
 * Verity itself leaves it out, and so is each `verified_claims` that meets none of the requests; a
 * `sub` other than the one asked for is `onWrongSub`'s to refuse.
 */
export function keepRequested<T extends Record<string, unknown>>(
  asked: ClaimsRequestMember | undefined,
  got: T,
  now: Date,
  onWrongSub: () => Error,
): T {
  if (!asked) return got;
  const nowSeconds = now.getTime() / 1000;
  const out: Record<string, unknown> = { ...got };
  for (const [name, request] of Object.entries(asked)) {
    if (name === 'verified_claims' || request === undefined || !(name in out)) continue;
    if (meets(request, out[name], nowSeconds)) continue;
    if (name === 'sub') throw onWrongSub();
    delete out[name];
  }
  if (asked.verified_claims !== undefined && out.verified_claims !== undefined) {
    const requests = asList(asked.verified_claims);
    const kept = asList(out.verified_claims).filter((vc) => requests.some((r) => meets(r, vc, nowSeconds)));
    if (!kept.length) delete out.verified_claims;
    else out.verified_claims = Array.isArray(out.verified_claims) ? kept : kept[0];
  }
  return out as T;
}
