import { maskNumber } from '../persons/persons.ts';
import { isoTime } from '../platform/clock.ts';
// The response shapes are the SDK's published types (type-only, so the SDK stays free of server
// code): what the API returns and what integrators are told it returns cannot drift apart.
import type { IdentityDocument, IdentityDocumentSummary } from '../sdk/types.ts';
import type { SharedDocument } from './document.store.ts';
import type { DocumentAccess } from './eligibility.ts';

export type { DocumentAccess } from './eligibility.ts';

/** Allowed values of `proof.type`. */
export const PROOF_TYPE = 'verity_attestation_ref';

/**
 * The full number is released only in production, only with `document_number_full`, and only to an
 * application an operator approved for it (the flag is re-checked here, not just at authorize, so
 * withdrawing the approval takes effect on the next read).
 */
export const fullNumberAllowed = (scopes: ReadonlySet<string>, access: DocumentAccess): boolean =>
  scopes.has('document_number_full') && access.environment === 'production' && access.fullNumberApproved;

/** The summary fields (DESIGN.md §5 "Document fields per scope"): reference and name always, the rest per scope. */
export function summaryView(
  doc: SharedDocument,
  reference: string,
  scopes: ReadonlySet<string>,
): IdentityDocumentSummary {
  const out: IdentityDocumentSummary = { documentReference: reference, displayName: doc.displayName };
  if (scopes.has('document_type')) out.documentType = doc.documentType;
  if (scopes.has('document_issuing_country')) out.issuingCountry = doc.issuingCountry;
  if (scopes.has('document_validity')) out.validityStatus = doc.validityStatus;
  if (scopes.has('document_verified')) out.verified = doc.verified;
  if (scopes.has('document_verified_at') && doc.verifiedAt !== null) out.verifiedAt = isoTime(doc.verifiedAt);
  return out;
}

/** The detail-only fields: expiry date and the number, masked (last 3 characters kept) or full. */
function detailFields(doc: SharedDocument, scopes: ReadonlySet<string>, access: DocumentAccess) {
  const out: { expiryDate?: string; maskedDocumentNumber?: string; documentNumber?: string } = {};
  if (scopes.has('document_expiry_date')) out.expiryDate = doc.expiryDate;
  if (scopes.has('document_number_masked')) out.maskedDocumentNumber = maskNumber(doc.documentNumber);
  if (fullNumberAllowed(scopes, access)) out.documentNumber = doc.documentNumber;
  return out;
}

export function detailView(
  doc: SharedDocument,
  reference: string,
  scopes: ReadonlySet<string>,
  access: DocumentAccess,
  proofHash: string,
  schemaVersion: string,
): IdentityDocument {
  return {
    ...summaryView(doc, reference, scopes),
    ...detailFields(doc, scopes, access),
    proof: {
      type: PROOF_TYPE,
      attestationId: doc.attestationId,
      schemaVersion,
      status: doc.proofStatus,
      proofHash,
    },
  };
}

/**
 * The UserInfo `document` claim: only the approved fields of one document, or undefined when no
 * `document_*` scope was approved. It needs no `identity_documents` (that scope opens the documents
 * API). The display name is left out (it names the type and country, which have scopes of their own),
 * and the reference appears only with `identity_documents`, to fetch the detail with.
 */
export function documentClaim(
  doc: SharedDocument,
  reference: string,
  scopes: ReadonlySet<string>,
  access: DocumentAccess,
): Record<string, unknown> | undefined {
  if (![...scopes].some((s) => s.startsWith('document_'))) return undefined;
  const { documentReference, displayName: _name, ...approved } = summaryView(doc, reference, scopes);
  return {
    ...(scopes.has('identity_documents') ? { documentReference } : {}),
    ...approved,
    ...detailFields(doc, scopes, access),
  };
}
