import type { AccessGrant } from '../auth/bearer.ts';
import { invalidToken } from '../auth/bearer.ts';
import type { AppContext } from '../context.ts';
import { createDocumentStore } from '../documents/document.store.ts';
import { isShareable } from '../documents/eligibility.ts';
import { referencesFor } from '../documents/reference.ts';
import { subjectFor } from '../keys/pairwise.ts';
import { type Claims, type ClaimsPerson, claimsFor } from './claims.ts';

interface PersonRow {
  name: string | null;
  given_name: string | null;
  family_name: string | null;
  preferred_username: string | null;
  locale: string | null;
  legal_given_name: string | null;
  legal_family_name: string | null;
  birthdate: string | null;
  nationalities: string;
  photo: string | null;
  photo_verified: number;
  assurance_level: ClaimsPerson['assuranceLevel'];
  identity_verified: number;
  updated_at: number;
}

const PERSON = `SELECT name, given_name, family_name, preferred_username, locale, legal_given_name,
    legal_family_name, birthdate, nationalities, photo, photo_verified, assurance_level, identity_verified,
    updated_at
  FROM persons WHERE id = ?`;
const EMAILS = `SELECT email, verified, "primary" FROM person_emails WHERE person_id = ? ORDER BY "primary" DESC, id`;
const PHONES = `SELECT phone, verified, "primary" FROM person_phones WHERE person_id = ? ORDER BY "primary" DESC, id`;

/** The person's releasable data, or undefined if the row is gone. */
export function loadClaimsPerson(ctx: AppContext, personId: string): ClaimsPerson | undefined {
  const sql = ctx.db.sql;
  const p = sql.prepare<PersonRow>(PERSON).get(personId);
  if (!p) return undefined;
  const emails = sql
    .prepare<{ email: string; verified: number; primary: number }>(EMAILS)
    .all(personId)
    .map((e) => ({ email: e.email, verified: e.verified === 1, primary: e.primary === 1 }));
  const phones = sql
    .prepare<{ phone: string; verified: number; primary: number }>(PHONES)
    .all(personId)
    .map((e) => ({ phone: e.phone, verified: e.verified === 1, primary: e.primary === 1 }));
  return {
    name: p.name,
    givenName: p.given_name,
    familyName: p.family_name,
    preferredUsername: p.preferred_username,
    locale: p.locale,
    legalGivenName: p.legal_given_name,
    legalFamilyName: p.legal_family_name,
    birthdate: p.birthdate,
    nationalities: JSON.parse(p.nationalities) as string[],
    photo: p.photo,
    photoVerified: p.photo_verified === 1,
    assuranceLevel: p.assurance_level,
    identityVerified: p.identity_verified === 1,
    updatedAt: p.updated_at,
    emails,
    phones,
  };
}

/** `GET /v1/userinfo`: the claims of an authenticated grant, computed at request time. */
export async function userinfoFor(ctx: AppContext, grant: AccessGrant): Promise<Claims> {
  const person = loadClaimsPerson(ctx, grant.personId);
  if (!person) throw invalidToken();
  const wantsDocument = [...grant.scopes].some((s) => s.startsWith('document_'));
  const documents = wantsDocument
    ? createDocumentStore(ctx.db)
        .forPerson(grant.personId)
        .filter((d) => isShareable(d, grant))
    : [];
  const refs = await referencesFor(ctx, grant.applicationId, documents);
  return claimsFor(person, documents, grant.scopes, {
    sub: await subjectFor(ctx, grant.applicationId, grant.personId),
    now: ctx.clock.now(),
    faceResults: { livenessVerified: grant.livenessVerified, faceMatchVerified: grant.faceMatchVerified },
    environment: grant.environment,
    documentTypes: grant.documentTypes,
    documentCountries: grant.documentCountries,
    fullNumberApproved: grant.fullNumberApproved,
    referenceOf: (id) => refs.get(id) ?? '',
  });
}
