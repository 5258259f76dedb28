import { DOCUMENT_TYPE_LABELS } from '../capabilities/data/document-types.ts';
import { type DocumentField, scopedDocumentFields } from '../capabilities/scope-catalogue.ts';
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

interface FieldSource {
  doc: SharedDocument;
  scopes: ReadonlySet<string>;
  access?: DocumentAccess;
}

/**
 * How each field a `document_*` scope releases is read from a document. Which fields a grant shows is the
 * scope catalogue's to say (the same table `/v1/capabilities/scopes` is built from); undefined leaves the
 * field out.
 */
const SUMMARY_FIELDS = {
  documentType: ({ doc }: FieldSource) => doc.documentType,
  issuingCountry: ({ doc }: FieldSource) => doc.issuingCountry,
  validityStatus: ({ doc }: FieldSource) => doc.validityStatus,
  verified: ({ doc }: FieldSource) => doc.verified,
  verifiedAt: ({ doc }: FieldSource) => (doc.verifiedAt === null ? undefined : isoTime(doc.verifiedAt)),
};

/** The detail-only fields: expiry date and the number, masked (last 3 characters kept) or full. */
const DETAIL_FIELDS = {
  expiryDate: ({ doc }: FieldSource) => doc.expiryDate,
  maskedDocumentNumber: ({ doc }: FieldSource) => maskNumber(doc.documentNumber),
  documentNumber: ({ doc, scopes, access }: FieldSource) =>
    access && fullNumberAllowed(scopes, access) ? doc.documentNumber : undefined,
};

// Every field the catalogue can release has a reader (the compiler checks it).
const READERS: Record<DocumentField, (src: FieldSource) => string | boolean | undefined> = {
  ...SUMMARY_FIELDS,
  ...DETAIL_FIELDS,
};

function releasedFields(
  fields: Readonly<Record<string, unknown>>,
  src: FieldSource,
): Partial<Record<DocumentField, string | boolean>> {
  const out: Partial<Record<DocumentField, string | boolean>> = {};
  for (const field of scopedDocumentFields(src.scopes)) {
    if (!(field in fields)) continue;
    const value = READERS[field](src);
    if (value !== undefined) out[field] = value;
  }
  return out;
}

/**
 * The display name as far as the approved scopes tell: a stored name says the type and the issuing
 * country ("German passport"), which have scopes of their own, so without both it is the type's label,
 * or without `document_type` only "Identity document".
 */
function displayName(doc: SharedDocument, scopes: ReadonlySet<string>): string {
  if (!scopes.has('document_type')) return 'Identity document';
  if (!scopes.has('document_issuing_country')) return DOCUMENT_TYPE_LABELS[doc.documentType];
  return doc.displayName;
}

/** The summary fields (DESIGN.md §5 "Document fields per scope"): reference and name always, the rest per scope. */
export function summaryView(
  doc: SharedDocument,
  reference: string,
  scopes: ReadonlySet<string>,
): IdentityDocumentSummary {
  return {
    documentReference: reference,
    displayName: displayName(doc, scopes),
    ...(releasedFields(SUMMARY_FIELDS, { doc, scopes }) as Partial<IdentityDocumentSummary>),
  };
}

const detailFields = (doc: SharedDocument, scopes: ReadonlySet<string>, access: DocumentAccess) =>
  releasedFields(DETAIL_FIELDS, { doc, scopes, access }) as Partial<IdentityDocument>;

/** The application's own values of a document's proof (reference.ts). */
export type ProofValues = Pick<IdentityDocument['proof'], 'attestationId' | 'schemaVersion' | 'proofHash'>;

export function detailView(
  doc: SharedDocument,
  reference: string,
  scopes: ReadonlySet<string>,
  access: DocumentAccess,
  proof: ProofValues,
): IdentityDocument {
  return {
    ...summaryView(doc, reference, scopes),
    ...detailFields(doc, scopes, access),
    proof: {
      type: PROOF_TYPE,
      attestationId: proof.attestationId,
      schemaVersion: proof.schemaVersion,
      status: doc.proofStatus,
      proofHash: proof.proofHash,
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
