import { type RequestedClaims, storedClaimsRequest } from '../assurance/claims-request.ts';
import { trustFrameworkFor } from '../assurance/verification.ts';
import { availableVerifiedClaims } from '../assurance/verified-claims.ts';
import type { AccessGrant } from '../auth/bearer.ts';
import { invalidToken } from '../auth/bearer.ts';
import type { AppContext } from '../context.ts';
import { createDocumentStore } from '../documents/document.store.ts';
import { isShareable } from '../documents/eligibility.ts';
import { referencesFor } from '../documents/reference.ts';
import { subjectFor } from '../keys/pairwise.ts';
import { releasablePerson } from '../persons/person.store.ts';
import { type Claims, type ClaimsPerson, claimsFor } from './claims.ts';
import { requestedClaims } from './requested-claims.ts';

/**
 * The claims the grant's scopes release, computed at request time, and what a claims request member
 * makes of them (verified claims are built only when it asks for them).
 */
async function releasedClaims(
  ctx: AppContext,
  grant: AccessGrant,
  member: RequestedClaims | undefined,
  target: 'userinfo' | 'id_token',
): Promise<Record<string, unknown>> {
  const person: ClaimsPerson | undefined = releasablePerson(ctx, grant.personId);
  if (!person) throw invalidToken();
  const wantsVerified = member?.verifiedClaims !== undefined;
  const wantsDocument = wantsVerified || [...grant.scopes].some((s) => s.startsWith('document_'));
  const documents = wantsDocument
    ? createDocumentStore(ctx.db)
        .forHolder(grant)
        .filter((d) => isShareable(d, grant))
    : [];
  const refs = await referencesFor(ctx, grant.applicationId, documents);
  const now = ctx.clock.now();
  const released: Claims = claimsFor(person, documents, grant.scopes, {
    sub: await subjectFor(ctx, grant.applicationId, grant.personId),
    now,
    faceResults: { livenessVerified: grant.livenessVerified, faceMatchVerified: grant.faceMatchVerified },
    environment: grant.environment,
    documentTypes: grant.documentTypes,
    documentCountries: grant.documentCountries,
    fullNumberApproved: grant.fullNumberApproved,
    referenceOf: (id) => refs.get(id) ?? '',
  });
  if (!member) return released;
  const verified = wantsVerified
    ? availableVerifiedClaims(person, {
        trustFramework: trustFrameworkFor(ctx.config, grant.environment),
        documents,
        scopes: grant.scopes,
        access: grant,
      })
    : undefined;
  return requestedClaims(released, member, target, verified, now);
}

/** `GET /v1/userinfo`: the claims of an authenticated grant, with its claims request's `userinfo` member. */
export async function userinfoFor(ctx: AppContext, grant: AccessGrant): Promise<Claims> {
  const member = storedClaimsRequest(grant.claims)?.userinfo;
  return (await releasedClaims(ctx, grant, member, 'userinfo')) as Claims;
}

/** The claims an `id_token` member of a claims request places in the ID token (OIDC Core §5.5). */
export const idTokenClaimsFor = (ctx: AppContext, grant: AccessGrant, member: RequestedClaims) =>
  releasedClaims(ctx, grant, member, 'id_token');
