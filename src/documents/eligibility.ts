import type { Environment } from '../environment.ts';
import type { SharedDocument } from './document.store.ts';

/** The application environment a document would be shown to, and its document policy. */
export interface DocumentAccess {
  environment: Environment;
  /** Allowed document types; empty allows none. */
  documentTypes: readonly string[];
  /** Allowed issuing countries (ISO 3166-1 alpha-2); empty allows none. */
  documentCountries: readonly string[];
  /** The operator approved the application for `document_number_full`. */
  fullNumberApproved: boolean;
}

/**
 * Whether an application may see a document at all: active (not disabled by an import), verified,
 * shared by the person, and of a type and issuing country its policy allows. An expired, revoked or
 * suspended document still qualifies; its `validityStatus` tells the application.
 */
export function isShareable(doc: SharedDocument, access: DocumentAccess): boolean {
  return (
    doc.status === 'active' &&
    doc.verified &&
    doc.shareEnabled &&
    access.documentTypes.includes(doc.documentType) &&
    access.documentCountries.includes(doc.issuingCountry)
  );
}
