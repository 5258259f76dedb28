import { constrained, DETAIL_ELEMENTS, meets, VERIFICATION_ELEMENTS } from '../sdk/element-match.ts';
import type {
  ElementRequest,
  EvidenceRequest,
  RequestedClaims,
  VerificationRequest,
  VerifiedClaimsRequest,
} from './claims-request.ts';
import {
  type CheckDetail,
  type DocumentDetails,
  type DocumentEvidence,
  type Verification,
  type VerificationInput,
  verificationFor,
} from './verification.ts';

/** One `verified_claims` object (OpenID Identity Assurance Schema Definition 1.0 §5.2). */
export interface VerifiedClaims {
  verification: Verification;
  claims: Record<string, unknown>;
}

/** The claims Verity places inside `verified_claims` (discovery: `claims_in_verified_claims_supported`). */
export const CLAIMS_IN_VERIFIED_CLAIMS = ['given_name', 'family_name', 'birthdate', 'nationalities'] as const;

/** The verified identity data of a person (as imported from the upstream verification process). */
export interface VerifiedPerson {
  identityVerified: boolean;
  assuranceLevel: string;
  legalGivenName: string | null;
  legalFamilyName: string | null;
  /** `YYYY-MM-DD`. */
  birthdate: string | null;
  nationalities: readonly string[];
}

/**
 * Everything a person's verified data offers under the approved scopes, before a request filters it;
 * undefined when there is nothing verified to offer: no trust framework for the environment, a person
 * whose identity is not verified, or no `identity_verified` scope. The claims are the legal names
 * (`legal_name`), the date of birth (`date_of_birth`) and the nationalities (`nationality`).
 */
export function availableVerifiedClaims(
  person: VerifiedPerson,
  input: Omit<VerificationInput, 'trustFramework' | 'assuranceLevel'> & { trustFramework?: string },
): VerifiedClaims | undefined {
  const { scopes } = input;
  if (!input.trustFramework || !person.identityVerified || !scopes.has('identity_verified')) return undefined;
  const claims: Record<string, unknown> = {};
  if (scopes.has('legal_name')) {
    if (person.legalGivenName) claims.given_name = person.legalGivenName;
    if (person.legalFamilyName) claims.family_name = person.legalFamilyName;
  }
  if (scopes.has('date_of_birth') && person.birthdate) claims.birthdate = person.birthdate;
  if (scopes.has('nationality') && person.nationalities.length)
    claims.nationalities = [...person.nationalities];
  const verification = verificationFor({
    ...input,
    trustFramework: input.trustFramework,
    assuranceLevel: person.assuranceLevel,
  });
  return { verification, claims };
}

/**
 * The requested elements that are available and meet their constraints. With `strict` (elements of
 * `verification`, OIDC4IDA §5.7.4), a constrained element that is missing or does not match fails the whole
 * selection (undefined); otherwise such an element is only left out.
 */
export function select(
  available: Readonly<Record<string, unknown>>,
  request: Readonly<Record<string, ElementRequest>>,
  now: Date,
  strict: boolean,
): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  for (const [name, r] of Object.entries(request)) {
    const v = available[name];
    if (v !== undefined && meets(v, r, now)) out[name] = v;
    else if (strict && constrained(r)) return undefined;
  }
  return out;
}

/**
 * The checks an evidence request's `check_details` lets through (OIDC4IDA §5.4: its entries are OR'ed),
 * each shaped by the entry it meets; undefined when an entry constrains a check and none meets one.
 */
function checksFor(
  held: readonly CheckDetail[],
  requested: readonly Record<string, ElementRequest>[],
  now: Date,
): CheckDetail[] | undefined {
  const kept = held.flatMap((check) => {
    for (const entry of requested) {
      const shaped = select(check as unknown as Record<string, unknown>, entry, now, true);
      if (shaped) return [shaped as unknown as CheckDetail];
    }
    return [];
  });
  if (!kept.length && requested.some((entry) => Object.values(entry).some(constrained))) return undefined;
  return kept;
}

/**
 * A document evidence shaped by one evidence request (OIDC4IDA §5.4: the request is a filter and a template),
 * or undefined when it does not pass the filter.
 */
function evidenceFor(item: DocumentEvidence, r: EvidenceRequest, now: Date): DocumentEvidence | undefined {
  if (r.type.value !== item.type) return undefined;
  const out: DocumentEvidence = { type: item.type };
  if (r.check_details) {
    const checks = checksFor(item.check_details ?? [], r.check_details, now);
    if (!checks) return undefined;
    if (checks.length) out.check_details = checks;
  }
  const dd = r.document_details;
  if (!dd) return out;
  const held: Record<string, unknown> = { ...item.document_details };
  const flat = Object.fromEntries(
    DETAIL_ELEMENTS.flatMap((k) => (dd[k] === undefined ? [] : [[k, dd[k] as ElementRequest]])),
  );
  const details = select(held, flat, now, true);
  if (!details) return undefined;
  if (dd.issuer) {
    const issuer = select(item.document_details?.issuer ?? {}, dd.issuer, now, true);
    if (!issuer) return undefined;
    if (Object.keys(issuer).length) details.issuer = issuer;
  }
  // `document_details` without its required `type` is left out whole (OIDC4IDA §5.7.5).
  if (details.type !== undefined) out.document_details = details as unknown as DocumentDetails;
  return out;
}

/** Available evidence that passes any of the requested filters (they are OR'ed), each as its template says. */
function evidenceList(
  available: readonly DocumentEvidence[],
  requests: readonly EvidenceRequest[],
  now: Date,
): DocumentEvidence[] {
  return available.flatMap((item) => {
    for (const r of requests) {
      const shaped = evidenceFor(item, r, now);
      if (shaped) return [shaped];
    }
    return [];
  });
}

/**
 * The `verification` element a request asks for, or undefined when the available data does not meet
 * its constraints: then the whole `verified_claims` is left out, never an error (OIDC4IDA §5.7.4).
 */
export function filterVerification(
  available: Verification,
  request: VerificationRequest,
  now: Date,
): Verification | undefined {
  const asked = Object.fromEntries(
    VERIFICATION_ELEMENTS.flatMap((k) => (request[k] === undefined ? [] : [[k, request[k]!]])),
  );
  const out = select(available as unknown as Record<string, unknown>, asked, now, true);
  if (!out || out.trust_framework === undefined) return undefined;
  if (request.evidence) {
    // Every evidence request names its type with `value`: no matching evidence fails the filter.
    const evidence = evidenceList(available.evidence ?? [], request.evidence, now);
    if (!evidence.length) return undefined;
    out.evidence = evidence;
  }
  return out as unknown as Verification;
}

/** One requested `verified_claims`: its verification as filtered, its claims as far as they match. */
export function answerVerifiedClaims(
  available: VerifiedClaims,
  request: VerifiedClaimsRequest,
  now: Date,
): VerifiedClaims | undefined {
  const verification = filterVerification(available.verification, request.verification, now);
  if (!verification) return undefined;
  return { verification, claims: select(available.claims, request.claims, now, false)! };
}

/**
 * The `verified_claims` value for one member of the claims request (OIDC4IDA §5.6: each requested object is
 * answered independently), in the shape asked: a list for a list, an object for an object; undefined
 * when nothing could be answered.
 */
export function verifiedClaimsAnswer(
  available: VerifiedClaims | undefined,
  member: RequestedClaims,
  now: Date,
): VerifiedClaims | VerifiedClaims[] | undefined {
  if (!available || !member.verifiedClaims) return undefined;
  const answers = member.verifiedClaims.flatMap((r) => answerVerifiedClaims(available, r, now) ?? []);
  if (!answers.length) return undefined;
  return member.verifiedClaimsList ? answers : answers[0];
}
