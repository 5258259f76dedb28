import type { AccessGrant } from '../auth/bearer.ts';
import { invalidToken } from '../auth/bearer.ts';
import type { AppContext } from '../context.ts';
import { createDocumentStore } from '../documents/document.store.ts';
import { isShareable } from '../documents/eligibility.ts';
import { referencesFor } from '../documents/reference.ts';
import { subjectFor } from '../keys/pairwise.ts';
import { createPersonStore } from '../persons/person.store.ts';
import { type Claims, type ClaimsPerson, claimsFor } from './claims.ts';

/** The person's releasable data, or undefined if the row is gone. */
export function loadClaimsPerson(ctx: AppContext, personId: string): ClaimsPerson | undefined {
  const p = createPersonStore(ctx.db).releasable(personId);
  return p && { ...p, nationalities: JSON.parse(p.nationalities) as string[] };
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
