import type { ClaimsRequest, ClaimsRequestMember } from './claims-parameter.ts';
import {
  constrained,
  DETAIL_ELEMENTS,
  type ElementConstraints,
  meets,
  VERIFICATION_ELEMENTS,
} from './element-match.ts';

/**
 * The answer (ID token claims, UserInfo) held to what the sign-in asked for, by the rules Verity answers
 * with (`src/assurance/verified-claims.ts`, through the same element-match.ts): the request rides in
 * the authorization URL, where the person can edit it, so a constraint they removed would otherwise go
 * unchecked (docs/integration.md).
 */

type Json = Record<string, unknown>;
const object = (v: unknown): Json | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
/** One element's request; `null` and members not understood ask nothing. */
const element = (r: unknown): ElementConstraints => object(r) ?? {};
const asList = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined ? [] : [v]);

/** Every constrained element of `request` present in `held` and meeting it (`verification`'s rule). */
function strictlyMeets(held: unknown, request: unknown, now: Date): boolean {
  const h = object(held) ?? {};
  return Object.entries(object(request) ?? {}).every(([name, r]) => {
    const e = element(r);
    return !constrained(e) || (h[name] !== undefined && meets(h[name], e, now));
  });
}

/** Whether an evidence passes one evidence request, its filter (OIDC4IDA §5.4). */
function evidencePasses(item: unknown, r: unknown, now: Date): boolean {
  const held = object(item) ?? {};
  const request = object(r) ?? {};
  if (held.type !== element(request.type).value) return false;
  const checks = asList(request.check_details);
  if (checks.length) {
    const kept = asList(held.check_details).filter((c) =>
      checks.some((entry) => strictlyMeets(c, entry, now)),
    );
    const anyConstrained = checks.some((entry) =>
      Object.values(object(entry) ?? {}).some((e) => constrained(element(e))),
    );
    if (!kept.length && anyConstrained) return false;
  }
  const details = object(request.document_details);
  if (!details) return true;
  const heldDetails = object(held.document_details) ?? {};
  const flat = Object.fromEntries(DETAIL_ELEMENTS.map((k) => [k, details[k]]));
  return strictlyMeets(heldDetails, flat, now) && strictlyMeets(heldDetails.issuer, details.issuer, now);
}

/**
 * One `verified_claims` as it may stand against one request: its `verification` must meet every
 * constraint there and hold evidence passing the evidence filters when asked (else undefined); of its
 * claims, those that do not meet theirs are left out.
 */
function answerTo(vc: unknown, request: unknown, now: Date): Json | undefined {
  const got = object(vc);
  const asked = object(request);
  const verification = object(got?.verification);
  const askedVerification = object(asked?.verification) ?? {};
  if (!got || !verification || verification.trust_framework === undefined) return undefined;
  const elements = Object.fromEntries(VERIFICATION_ELEMENTS.map((k) => [k, askedVerification[k]]));
  if (!strictlyMeets(verification, elements, now)) return undefined;
  let kept = verification;
  if (askedVerification.evidence !== undefined) {
    const filters = asList(askedVerification.evidence);
    const evidence = asList(verification.evidence).filter((e) =>
      filters.some((f) => evidencePasses(e, f, now)),
    );
    if (!evidence.length) return undefined;
    kept = { ...verification, evidence };
  }
  const claims = { ...(object(got.claims) ?? {}) };
  for (const [name, r] of Object.entries(object(asked?.claims) ?? {}))
    if (claims[name] !== undefined && !meets(claims[name], element(r), now)) delete claims[name];
  return { ...got, verification: kept, claims };
}

/** The `claims` parameter as the transaction kept it (its JSON text), or undefined. */
export function parseClaimsRequest(claims: string | ClaimsRequest | undefined): ClaimsRequest | undefined {
  return typeof claims === 'string' ? (JSON.parse(claims) as ClaimsRequest) : claims;
}

/**
 * `got` as far as it meets `asked` (one member of the claims request): a claim that does not meet its
 * request is left out, as Verity leaves it out, and so is each `verified_claims` that meets none of the
 * requests (evidence that passes none of their filters goes with it); a `sub` other than the one asked
 * for is `onWrongSub`'s to refuse.
 */
export function keepRequested<T extends Record<string, unknown>>(
  asked: ClaimsRequestMember | undefined,
  got: T,
  now: Date,
  onWrongSub: () => Error,
): T {
  if (!asked) return got;
  const out: Json = { ...got };
  for (const [name, request] of Object.entries(asked)) {
    if (name === 'verified_claims' || out[name] === undefined || meets(out[name], element(request), now))
      continue;
    if (name === 'sub') throw onWrongSub();
    delete out[name];
  }
  if (asked.verified_claims !== undefined && out.verified_claims !== undefined) {
    const requests = asList(asked.verified_claims);
    const kept = asList(out.verified_claims).flatMap((vc) => {
      for (const r of requests) {
        const answer = answerTo(vc, r, now);
        if (answer) return [answer];
      }
      return [];
    });
    if (!kept.length) delete out.verified_claims;
    else out.verified_claims = Array.isArray(out.verified_claims) ? kept : kept[0];
  }
  return out as T;
}
