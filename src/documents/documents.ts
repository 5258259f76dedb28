import type { AccessGrant } from '../auth/bearer.ts';
import { insufficientScope } from '../auth/bearer.ts';
import type { AppContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import type { IdentityDocument, IdentityDocumentSummary } from '../sdk/types.ts';
import { createDocumentStore, type SharedDocument } from './document.store.ts';
import { isShareable } from './eligibility.ts';
import {
  attestationReference,
  PROOF_SCHEMA_VERSION,
  proofHash,
  referencesFor,
  resolveReference,
} from './reference.ts';
import { detailView, summaryView } from './views.ts';

const notFound = () =>
  new ApiError('IDENTITY_DOCUMENT_NOT_FOUND', 'No identity document is shared under this reference.', 404);

function requireDocumentsScope(grant: AccessGrant): void {
  if (!grant.scopes.has('identity_documents')) throw insufficientScope('identity_documents');
}

/**
 * `GET /v1/userinfo/identity-documents`: every document of the person this application may see now
 * (active, verified, shared, within its policy), with the fields of the approved scopes. Not paginated:
 * a person holds a handful of documents.
 */
export async function listSharedDocuments(
  ctx: AppContext,
  grant: AccessGrant,
): Promise<IdentityDocumentSummary[]> {
  requireDocumentsScope(grant);
  const docs = createDocumentStore(ctx.db)
    .forHolder(grant)
    .filter((d) => isShareable(d, grant));
  const refs = await referencesFor(ctx, grant.applicationId, docs);
  return docs.map((d) => summaryView(d, refs.get(d.id)!, grant.scopes));
}

/**
 * The document a reference names for this grant. The same 404 whether the reference is unknown, made
 * for another application or person, or names a document that is no longer shareable (disabled,
 * unverified, switched off by the person, outside the policy), so nothing can be learnt from the
 * difference.
 */
export async function resolveSharedDocument(
  ctx: AppContext,
  grant: AccessGrant,
  reference: string,
): Promise<SharedDocument> {
  requireDocumentsScope(grant);
  if (!/^[A-Za-z0-9_-]{43}$/.test(reference)) throw notFound();
  const docs = createDocumentStore(ctx.db).forHolder(grant);
  const doc = await resolveReference(ctx, grant.applicationId, docs, reference);
  if (!doc || !isShareable(doc, grant)) throw notFound();
  return doc;
}

/** The approved fields of a resolved document: what the detail endpoint answers and a proof carries. */
export async function documentDetail(
  ctx: AppContext,
  grant: AccessGrant,
  doc: SharedDocument,
  reference: string,
): Promise<IdentityDocument> {
  return detailView(doc, reference, grant.scopes, grant, {
    attestationId: await attestationReference(ctx, grant.applicationId, doc.attestationId),
    schemaVersion: PROOF_SCHEMA_VERSION,
    proofHash: await proofHash(ctx, grant.applicationId, doc),
  });
}

/** `GET /v1/userinfo/identity-documents/:documentReference`. */
export async function getSharedDocument(
  ctx: AppContext,
  grant: AccessGrant,
  reference: string,
): Promise<IdentityDocument> {
  return documentDetail(ctx, grant, await resolveSharedDocument(ctx, grant, reference), reference);
}
