/**
 * Whether a value meets a requested element's constraints, and which elements a request constrains:
 * Verity's answer to a claims request (src/assurance/verified-claims.ts) and the SDK's check of that
 * answer (requested-claims.ts) both decide with these, so the two cannot drift apart.
 */

/** The elements of `verification` a request may constrain (OIDC4IDA §5.7.4: strictly). */
export const VERIFICATION_ELEMENTS = [
  'trust_framework',
  'assurance_level',
  'time',
  'verification_process',
] as const;

/** The elements of a document evidence's `document_details`, besides its `issuer`. */
export const DETAIL_ELEMENTS = [
  'type',
  'document_number',
  'serial_number',
  'date_of_issuance',
  'date_of_expiry',
];

/** One requested element's constraints (Core §5.5.1; `max_age` from OIDC4IDA §5.5.2). */
export interface ElementConstraints {
  value?: unknown;
  values?: readonly unknown[];
  max_age?: number;
}

const same = (a: unknown, b: unknown) => a === b || JSON.stringify(a) === JSON.stringify(b);

/**
 * Seconds since a date (`YYYY-MM-DD`, counted from its last second, as OIDC4IDA §5.5.2 says) or a
 * timestamp; undefined for anything else.
 */
function secondsSince(value: unknown, now: Date): number | undefined {
  if (typeof value !== 'string') return undefined;
  const at = /^\d{4}-\d{2}-\d{2}$/.test(value) ? Date.parse(`${value}T23:59:59Z`) : Date.parse(value);
  return Number.isNaN(at) ? undefined : (now.getTime() - at) / 1000;
}

/** Whether a value meets a request's `value`, `values` and `max_age`. */
export function meets(value: unknown, request: ElementConstraints, now: Date): boolean {
  if (request.value !== undefined && !same(value, request.value)) return false;
  if (request.values !== undefined && !request.values.some((v) => same(value, v))) return false;
  if (request.max_age !== undefined) {
    const age = secondsSince(value, now);
    if (age === undefined || age > request.max_age) return false;
  }
  return true;
}

export const constrained = (r: ElementConstraints) =>
  r.value !== undefined || r.values !== undefined || r.max_age !== undefined;
