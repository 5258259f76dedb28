/**
 * The document types Verity verifies and the fields a verification captures from each. A country entry
 * may add fields its documents carry (an address, a personal number). Embedded in the binary.
 */

export const DOCUMENT_TYPES = ['passport', 'id_card', 'driving_licence', 'residence_permit'] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];

export const isDocumentType = (s: string): s is DocumentType =>
  (DOCUMENT_TYPES as readonly string[]).includes(s);

/** What each type is called in English, in a document's default display name and where it stands in for one. */
export const DOCUMENT_TYPE_LABELS: Record<DocumentType, string> = {
  passport: 'Passport',
  id_card: 'Identity card',
  driving_licence: 'Driving licence',
  residence_permit: 'Residence permit',
};

/** `nfc`: the chip is read (ICAO 9303 eMRTD or EU eID); `mrz`: the machine-readable zone is read; `photo`: the printed face is read. */
export const CAPTURE_METHODS = ['nfc', 'mrz', 'photo'] as const;
export type CaptureMethod = (typeof CAPTURE_METHODS)[number];

export const ASSURANCE_LEVELS = ['low', 'substantial', 'high'] as const;
export type AssuranceLevel = (typeof ASSURANCE_LEVELS)[number];

export const BASE_FIELDS: Record<DocumentType, readonly string[]> = {
  passport: [
    'documentNumber',
    'givenNames',
    'familyName',
    'dateOfBirth',
    'sex',
    'nationality',
    'issuingCountry',
    'expiryDate',
    'portrait',
  ],
  id_card: [
    'documentNumber',
    'givenNames',
    'familyName',
    'dateOfBirth',
    'nationality',
    'issuingCountry',
    'expiryDate',
    'portrait',
  ],
  driving_licence: [
    'documentNumber',
    'givenNames',
    'familyName',
    'dateOfBirth',
    'issuingCountry',
    'issueDate',
    'expiryDate',
    'licenceCategories',
    'portrait',
  ],
  residence_permit: [
    'documentNumber',
    'givenNames',
    'familyName',
    'dateOfBirth',
    'sex',
    'nationality',
    'issuingCountry',
    'expiryDate',
    'permitType',
    'portrait',
  ],
};

/**
 * The highest level a capture method reaches: reading the signed chip proves the data and the portrait
 * are the issuer's (high); the MRZ check digits prove a consistent document but not its origin
 * (substantial); a photo of the printed page alone proves least (low).
 */
export function assuranceFor(methods: readonly CaptureMethod[]): AssuranceLevel {
  if (methods.includes('nfc')) return 'high';
  if (methods.includes('mrz')) return 'substantial';
  return 'low';
}
