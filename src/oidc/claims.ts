import type { SharedDocument } from '../documents/document.store.ts';
import { type DocumentAccess, isShareable } from '../documents/eligibility.ts';
import { documentClaim } from '../documents/views.ts';
import type { PersonProfile } from '../persons/persons.ts';

/** The person data UserInfo can release. Anything null or empty is "not available" and never sent. */
export interface ClaimsPerson extends PersonProfile {
  name: string | null;
  photo: string | null;
  photoVerified: boolean;
  assuranceLevel: 'none' | 'low' | 'substantial' | 'high';
  identityVerified: boolean;
  /** Unix seconds. */
  updatedAt: number;
}

export interface ClaimsOptions extends DocumentAccess {
  sub: string;
  /** The request time, from the injected clock: `age` and `age_over_18` are computed against it. */
  now: Date;
  /** This authorization's face assurance, from the access token. */
  faceResults: { livenessVerified: boolean; faceMatchVerified: boolean };
  /** The application's reference for each shareable document (by document id). */
  referenceOf: (documentId: string) => string;
}

export type Claims = Record<string, unknown> & { sub: string };

/** Whole years between a `YYYY-MM-DD` date of birth and `now` (UTC); undefined if the date is unusable. */
export function ageAt(birthdate: string, now: Date): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(birthdate);
  if (!m) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  let age = now.getUTCFullYear() - y;
  const month = now.getUTCMonth() + 1;
  if (month < mo || (month === mo && now.getUTCDate() < d)) age--;
  return age >= 0 ? age : undefined;
}

const primaryOf = <T extends { primary: boolean }>(list: readonly T[]): T | undefined =>
  list.find((x) => x.primary) ?? list[0];

/** Sets `key` only when there is a value: absence is never turned into null, "" or false. */
function put(out: Record<string, unknown>, key: string, value: unknown): void {
  if (value === null || value === undefined || value === '') return;
  if (Array.isArray(value) && value.length === 0) return;
  out[key] = value;
}

/**
 * The UserInfo object for one authorization (DESIGN.md §5 "Scope → claims"): the pairwise `sub`, and
 * for each approved scope the claims it releases when the person has that data. Pure: everything that
 * depends on time, the token or the application comes in `opts`.
 */
export function claimsFor(
  person: ClaimsPerson,
  documents: readonly SharedDocument[],
  scopes: Iterable<string>,
  opts: ClaimsOptions,
): Claims {
  const s = new Set(scopes);
  const out: Claims = { sub: opts.sub };

  if (s.has('profile')) {
    put(out, 'name', person.name);
    put(out, 'given_name', person.givenName);
    put(out, 'family_name', person.familyName);
    put(out, 'preferred_username', person.preferredUsername);
    put(out, 'locale', person.locale);
    put(out, 'updated_at', person.updatedAt);
  }
  if (s.has('email')) {
    const e = primaryOf(person.emails);
    if (e) {
      out.email = e.email;
      out.email_verified = e.verified;
    }
  }
  if (s.has('emails'))
    put(
      out,
      'emails',
      person.emails.map((e) => ({ email: e.email, verified: e.verified, primary: e.primary })),
    );
  if (s.has('phone')) {
    const p = primaryOf(person.phones);
    if (p) {
      out.phone_number = p.phone;
      out.phone_number_verified = p.verified;
    }
  }
  if (s.has('phones'))
    put(
      out,
      'phone_numbers',
      person.phones.map((p) => ({ phone_number: p.phone, verified: p.verified, primary: p.primary })),
    );
  if (s.has('legal_name')) {
    const full = [person.legalGivenName, person.legalFamilyName].filter(Boolean).join(' ');
    put(out, 'legal_name', full);
    put(out, 'legal_given_name', person.legalGivenName);
    put(out, 'legal_family_name', person.legalFamilyName);
  }
  const age = person.birthdate ? ageAt(person.birthdate, opts.now) : undefined;
  if (s.has('age')) put(out, 'age', age);
  if (s.has('age_over_18') && age !== undefined) out.age_over_18 = age >= 18;
  if (s.has('date_of_birth')) put(out, 'birthdate', person.birthdate);
  if (s.has('nationality')) put(out, 'nationalities', [...person.nationalities]);
  if (s.has('identity_verified')) out.identity_verified = person.identityVerified;
  if (s.has('identity_assurance_level')) out.identity_assurance_level = person.assuranceLevel;
  if (s.has('liveness_verified')) out.liveness_verified = opts.faceResults.livenessVerified;
  if (s.has('face_match_verified')) out.face_match_verified = opts.faceResults.faceMatchVerified;
  if (s.has('profile_photo')) put(out, 'picture', person.photo);
  // Whether a photo is verified says nothing when there is no photo.
  if (s.has('profile_photo_verified') && person.photo) out.picture_verified = person.photoVerified;

  const doc = primaryShared(documents, opts);
  if (doc) put(out, 'document', documentClaim(doc, opts.referenceOf(doc.id), s, opts));
  return out;
}

/**
 * The document the `document` claim describes: among the documents this application may see (active,
 * verified, shared by the person, within its policy), the one the person marked primary, else the
 * one verified first.
 */
export function primaryShared(
  documents: readonly SharedDocument[],
  access: DocumentAccess,
): SharedDocument | undefined {
  const shareable = documents.filter((d) => isShareable(d, access));
  return shareable.find((d) => d.primary) ?? shareable[0];
}
