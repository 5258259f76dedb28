import { findEnvironment } from '../apps/application.store.ts';
import { trustFrameworkFor, type Verification, verificationFor } from '../assurance/verification.ts';
import type { AccessGrant } from '../auth/bearer.ts';
import type { AppContext } from '../context.ts';
import { randomToken } from '../crypto/tokens.ts';
import type { SharedDocument } from '../documents/document.store.ts';
import { documentDetail, resolveSharedDocument } from '../documents/documents.ts';
import { subjectFor } from '../keys/pairwise.ts';
import { signJwt } from '../keys/sign-jwt.ts';
import { createPersonStore } from '../persons/person.store.ts';
import { unix } from '../platform/clock.ts';
// The typ the SDK's verifier requires: one constant, so issuer and verifier cannot drift apart.
import { DOCUMENT_PROOF_TYP } from '../sdk/document-proof.ts';

/**
 * `GET /v1/userinfo/identity-documents/:documentReference/proof`: a JWS over the document as the
 * detail endpoint shows it to this grant (the same view, so no field the consent did not approve) and
 * its verification data, for the application (`aud`) and the person's pairwise `sub`, signed with the
 * active key and valid for `[assurance] proof_ttl`. The same checks (scope, 404) as the detail
 * endpoint, and like it the bearer guard refuses a token whose consent ended; a proof issued before
 * stays valid until its `exp`.
 */
export async function documentProof(ctx: AppContext, grant: AccessGrant, reference: string): Promise<string> {
  const doc = await resolveSharedDocument(ctx, grant, reference);
  const env = findEnvironment(ctx.db, grant.applicationId, grant.environment);
  if (!env) throw new Error(`application environment ${grant.environmentId} is gone`);
  const iat = unix(ctx.clock);
  return signJwt(ctx.keys, DOCUMENT_PROOF_TYP, {
    iss: ctx.config.server.base_url,
    sub: await subjectFor(ctx, grant.applicationId, grant.personId),
    aud: env.clientId,
    iat,
    exp: iat + Math.floor(ctx.config.assurance.proof_ttl / 1000),
    jti: randomToken(),
    document: await documentDetail(ctx, grant, doc, reference),
    verification: verificationOf(ctx, grant, doc),
  });
}

/**
 * The OIDC4IDA `verification` of this one document, under the conditions UserInfo's `verified_claims`
 * has: `identity_verified` approved, a person whose identity is verified, a trust framework for the
 * environment; each element behind its own scope. Undefined (left out of the JSON) otherwise.
 */
function verificationOf(ctx: AppContext, grant: AccessGrant, doc: SharedDocument): Verification | undefined {
  const trustFramework = trustFrameworkFor(ctx.config, grant.environment);
  if (!trustFramework || !grant.scopes.has('identity_verified')) return undefined;
  const person = createPersonStore(ctx.db).get(grant.personId);
  if (!person?.identityVerified) return undefined;
  return verificationFor({
    trustFramework,
    assuranceLevel: person.assuranceLevel,
    documents: [doc],
    scopes: grant.scopes,
    access: grant,
  });
}
