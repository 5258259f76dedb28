import { z } from '../zod.ts';

/**
 * The `claims` authorization request parameter (OpenID Connect Core 1.0 §5.5) with the `verified_claims`
 * syntax of OpenID Connect for Identity Assurance 1.0 §5.3–5.6, checked and normalised: every `null`
 * request becomes `{}`, a single `verified_claims` object becomes a list of one (remembering which it
 * was, since the answer takes the same shape). Members the specifications leave open are ignored, as
 * Core §5.5 says ("Any members used that are not understood MUST be ignored"); a member of the wrong
 * type, a `verified_claims` without `verification.trust_framework` or an evidence without a `type` value
 * is refused (the shape `schema/verified_claims_request.json` publishes).
 */

const scalar = z.union([z.string(), z.number(), z.boolean()]);

/** One requested element (Core §5.5.1; `max_age` from OIDC4IDA §5.5.2). */
const elementObject = z.looseObject({
  essential: z.optional(z.boolean()),
  value: z.optional(scalar),
  values: z.optional(z.array(scalar).check(z.minLength(1))),
  max_age: z.optional(z.int().check(z.minimum(0))),
  purpose: z.optional(z.string().check(z.minLength(3), z.maxLength(300))),
});
const element = z.pipe(
  z.union([z.null(), elementObject]),
  z.transform((e) => {
    if (e === null) return {};
    const { essential, value, values, max_age } = e;
    return {
      ...(essential === undefined ? {} : { essential }),
      ...(value === undefined ? {} : { value }),
      ...(values === undefined ? {} : { values }),
      ...(max_age === undefined ? {} : { max_age }),
    };
  }),
);
export type ElementRequest = z.output<typeof element>;

const elements = z.record(z.string(), element);

const documentDetails = z.looseObject({
  type: z.optional(element),
  document_number: z.optional(element),
  serial_number: z.optional(element),
  date_of_issuance: z.optional(element),
  date_of_expiry: z.optional(element),
  issuer: z.optional(elements),
});

// OIDC4IDA §5.4: the evidence `type` is given with `value` (never `values`), and is the filter.
const evidence = z.looseObject({
  type: z.looseObject({
    value: z.enum(['document', 'electronic_record', 'vouch', 'electronic_signature']),
  }),
  check_details: z.optional(
    z.array(z.catchall(z.object({ check_method: element }), element)).check(z.minLength(1)),
  ),
  document_details: z.optional(documentDetails),
});
export type EvidenceRequest = z.output<typeof evidence>;

const verification = z.looseObject({
  trust_framework: element,
  assurance_level: z.optional(element),
  time: z.optional(element),
  verification_process: z.optional(element),
  evidence: z.optional(z.array(evidence).check(z.minLength(1))),
});
export type VerificationRequest = z.output<typeof verification>;

const verifiedClaims = z.strictObject({
  verification,
  // `null` asks for the verification alone; an object names at least one claim.
  claims: z.union([
    z.pipe(
      z.null(),
      z.transform(() => ({})),
    ),
    z.record(z.string(), element),
  ]),
});
export type VerifiedClaimsRequest = z.output<typeof verifiedClaims>;

// Every member but `verified_claims` is an individual claim (Core §5.5.1).
const member = z.pipe(
  z.catchall(
    z.object({ verified_claims: z.optional(z.union([z.array(verifiedClaims), verifiedClaims])) }),
    element,
  ),
  z.transform(({ verified_claims, ...claims }) => {
    // An empty list (the schema allows it) asks for nothing.
    if (verified_claims === undefined || (Array.isArray(verified_claims) && !verified_claims.length))
      return { claims };
    const many = Array.isArray(verified_claims);
    return { claims, verifiedClaims: many ? verified_claims : [verified_claims], verifiedClaimsList: many };
  }),
);
export type RequestedClaims = z.output<typeof member>;

const claimsRequest = z.pipe(
  z.looseObject({ userinfo: z.optional(member), id_token: z.optional(member) }),
  z.transform(({ userinfo, id_token }) => ({
    ...(userinfo ? { userinfo } : {}),
    ...(id_token ? { id_token } : {}),
  })),
);

/** A checked `claims` parameter: what UserInfo and the ID token are asked to hold. */
export type ClaimsRequest = z.output<typeof claimsRequest>;

export type ClaimsRequestResult = { ok: true; request: ClaimsRequest } | { ok: false; problem: string };

/** Parses the parameter's text; `problem` says what is wrong, for an `invalid_request` description. */
export function parseClaimsRequest(text: string): ClaimsRequestResult {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, problem: 'The claims parameter is not valid JSON.' };
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json))
    return { ok: false, problem: 'The claims parameter must be a JSON object.' };
  const parsed = claimsRequest.safeParse(json);
  if (parsed.success) return { ok: true, request: parsed.data };
  const issue = parsed.error.issues[0]!;
  const where = issue.path.length ? ` at ${issue.path.map(String).join('.')}` : '';
  return {
    ok: false,
    problem: `The claims parameter is not a valid claims request${where}: ${issue.message}.`,
  };
}

/** The stored form, read back without checking again (it was checked before it was stored). */
export const storedClaimsRequest = (json: string | null): ClaimsRequest | undefined =>
  json === null ? undefined : (JSON.parse(json) as ClaimsRequest);

/**
 * The `acr` values an essential `acr` claim of the ID token asks for (Core §5.5.1.1), or undefined when
 * `acr` is not requested as essential with `value` or `values`.
 */
export function essentialAcr(request: ClaimsRequest | undefined): string[] | undefined {
  const acr = request?.id_token?.claims.acr;
  if (!acr?.essential) return undefined;
  const values = acr.values ?? (acr.value === undefined ? [] : [acr.value]);
  const strings = values.filter((v): v is string => typeof v === 'string');
  return strings.length ? strings : undefined;
}
