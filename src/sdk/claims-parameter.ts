/**
 * The `claims` authorization parameter (OpenID Connect Core 1.0 §5.5), with the `verified_claims`
 * requests of OpenID Connect for Identity Assurance 1.0 §5.3–5.6, and a builder for it. Verity releases
 * only what approved scopes cover: the parameter places and narrows claims, it never widens consent.
 */

type Scalar = string | number | boolean;

/** One requested claim or element: `null` asks for it plainly. */
export type ClaimRequest = null | {
  essential?: boolean;
  /** Released only with this value (Verity leaves the claim out otherwise). */
  value?: Scalar;
  /** Released only with one of these values. */
  values?: Scalar[];
  /** For dates and times: at most this many seconds old (OIDC4IDA §5.5.2). */
  max_age?: number;
};

export interface EvidenceRequest {
  type: { value: 'document' | 'electronic_record' | 'vouch' | 'electronic_signature' };
  check_details?: Record<string, ClaimRequest>[];
  document_details?: {
    type?: ClaimRequest;
    document_number?: ClaimRequest;
    date_of_issuance?: ClaimRequest;
    date_of_expiry?: ClaimRequest;
    issuer?: Record<string, ClaimRequest>;
  };
  [element: string]: unknown;
}

export interface VerifiedClaimsRequest {
  verification: {
    trust_framework: ClaimRequest;
    assurance_level?: ClaimRequest;
    time?: ClaimRequest;
    evidence?: EvidenceRequest[];
    [element: string]: unknown;
  };
  /** `null` asks for the verification alone. */
  claims: Record<string, ClaimRequest> | null;
}

/** A member (`userinfo`, `id_token`): claims by name, and `verified_claims`. */
export type ClaimsRequestMember = {
  verified_claims?: VerifiedClaimsRequest | VerifiedClaimsRequest[];
} & Record<string, ClaimRequest | VerifiedClaimsRequest | VerifiedClaimsRequest[] | undefined>;

/** The parameter as JSON. */
export interface ClaimsRequest {
  userinfo?: ClaimsRequestMember;
  id_token?: ClaimsRequestMember;
}

/** The parameter as sent (JSON text): a string is sent as it is. */
export const claimsText = (claims: ClaimsRequest | string): string =>
  typeof claims === 'string' ? claims : JSON.stringify(claims);

/** A `verified_claims` request in short: a string is a `value`, a list `values`, `true` just asks. */
export interface VerifiedClaimsSelection {
  /** Omitted: any framework. */
  trustFramework?: string | readonly string[];
  assuranceLevel?: true | string | readonly string[];
  /** `true`, or how old (in seconds) the verification may be at most. */
  time?: true | { maxAge: number };
  /** Document evidence, with the `document_details` elements wanted (none: the evidence type alone). */
  documentEvidence?: {
    details?: readonly ('type' | 'document_number' | 'date_of_expiry' | 'issuer')[];
    /** Only documents of these types (`passport`, `idcard`, `driving_permit`, `residence_permit`). */
    documentTypes?: readonly string[];
  };
  /** The verified claims wanted (e.g. `given_name`, `family_name`, `birthdate`, `nationalities`). */
  claims: readonly string[];
}

export interface ClaimsSelection {
  /** Claims by name (requested plainly), or with their requests. */
  claims?: readonly string[] | Readonly<Record<string, ClaimRequest>>;
  verifiedClaims?: VerifiedClaimsSelection | readonly VerifiedClaimsSelection[];
}

const constraint = (v: string | readonly string[]): ClaimRequest =>
  typeof v === 'string' ? { value: v } : { values: [...v] };

/** A `verified_claims` request from its short form. */
export function verifiedClaimsRequest(s: VerifiedClaimsSelection): VerifiedClaimsRequest {
  const verification: VerifiedClaimsRequest['verification'] = {
    trust_framework: s.trustFramework === undefined ? null : constraint(s.trustFramework),
  };
  if (s.assuranceLevel !== undefined)
    verification.assurance_level = s.assuranceLevel === true ? null : constraint(s.assuranceLevel);
  if (s.time !== undefined) verification.time = s.time === true ? null : { max_age: s.time.maxAge };
  if (s.documentEvidence) {
    const { details = [], documentTypes } = s.documentEvidence;
    const wanted: NonNullable<EvidenceRequest['document_details']> = {};
    for (const d of details) {
      if (d === 'issuer') wanted.issuer = { country: null, country_code: null };
      else wanted[d] = null;
    }
    if (documentTypes) wanted.type = { values: [...documentTypes] };
    verification.evidence = [
      { type: { value: 'document' }, ...(Object.keys(wanted).length ? { document_details: wanted } : {}) },
    ];
  }
  const claims = s.claims.length ? Object.fromEntries(s.claims.map((c) => [c, null])) : null;
  return { verification, claims };
}

const isList = <T>(v: T | readonly T[]): v is readonly T[] => Array.isArray(v);

function member(s: ClaimsSelection): ClaimsRequestMember {
  const named = s.claims ?? [];
  const out: ClaimsRequestMember = isList<string>(named as string | readonly string[])
    ? Object.fromEntries((named as readonly string[]).map((c) => [c, null]))
    : { ...(named as Readonly<Record<string, ClaimRequest>>) };
  const vc = s.verifiedClaims;
  if (vc) out.verified_claims = isList(vc) ? vc.map(verifiedClaimsRequest) : verifiedClaimsRequest(vc);
  return out;
}

/**
 * The `claims` parameter's value (JSON text) for what UserInfo and the ID token should hold, e.g.
 * `claimsParameter({ idToken: { verifiedClaims: { claims: ['given_name', 'family_name'] } } })`.
 */
export function claimsParameter(input: { userinfo?: ClaimsSelection; idToken?: ClaimsSelection }): string {
  const request: ClaimsRequest = {
    ...(input.userinfo ? { userinfo: member(input.userinfo) } : {}),
    ...(input.idToken ? { id_token: member(input.idToken) } : {}),
  };
  return JSON.stringify(request);
}
