import type { AssuranceLevel, CaptureMethod, DocumentType } from './document-types.ts';

/**
 * The embedded capability dataset: which documents of which countries Verity verifies, and how.
 * Country names come from `i18n-iso-countries`; operators change availability with
 * `verity capabilities set`, stored as overrides on top of this data.
 */

export interface DocumentEntry {
  captureMethods: readonly CaptureMethod[];
  /** Defaults to true. */
  available?: boolean;
  /** Fields beyond the document type's base fields. */
  extraFields?: readonly string[];
  /** Defaults to what the capture methods reach (see `assuranceFor`). */
  assuranceLevel?: AssuranceLevel;
}

export interface CountryEntry {
  code: string;
  /** When this country's entry last changed (ISO 8601). */
  updatedAt: string;
  documents: Partial<Record<DocumentType, DocumentEntry>>;
}

/** ICAO 9303 e-passports, EU eID cards (Regulation 2019/1157) and EU-format residence permits carry a chip. */
const CHIP: readonly CaptureMethod[] = ['nfc', 'mrz', 'photo'];
/** Machine-readable zone but no chip Verity can read. */
const MRZ: readonly CaptureMethod[] = ['mrz', 'photo'];
/** Driving licences and national cards without an ICAO zone or chip. */
const PHOTO: readonly CaptureMethod[] = ['photo'];

const RELEASE = '2026-03-02T00:00:00Z';

/** An EU or EEA member: chip passport, chip ID card, EU-format residence permit, EU photocard licence. */
function eu(code: string, opts: { idCard?: boolean; idFields?: readonly string[]; updatedAt?: string } = {}) {
  const documents: CountryEntry['documents'] = {
    passport: { captureMethods: CHIP },
    driving_licence: { captureMethods: PHOTO },
    residence_permit: { captureMethods: CHIP },
  };
  if (opts.idCard !== false) documents.id_card = { captureMethods: CHIP, extraFields: opts.idFields };
  return { code, updatedAt: opts.updatedAt ?? RELEASE, documents } satisfies CountryEntry;
}

const PERSONAL_NUMBER = ['personalNumber'] as const;

export const COUNTRIES: readonly CountryEntry[] = [
  // European Union
  eu('AT'),
  eu('BE', { idFields: PERSONAL_NUMBER }),
  eu('BG', { idFields: PERSONAL_NUMBER }),
  eu('HR', { idFields: PERSONAL_NUMBER }),
  eu('CY'),
  eu('CZ'),
  // Denmark issues no national identity card.
  eu('DK', { idCard: false }),
  eu('EE', { idFields: PERSONAL_NUMBER }),
  eu('FI', { idFields: PERSONAL_NUMBER }),
  eu('FR'),
  eu('DE', { idFields: ['address'] }),
  eu('GR'),
  // The Irish passport card is a chip card in the ID-card format.
  eu('IE'),
  eu('IT', { idFields: PERSONAL_NUMBER }),
  eu('LV', { idFields: PERSONAL_NUMBER }),
  eu('LT', { idFields: PERSONAL_NUMBER }),
  eu('LU'),
  eu('MT'),
  eu('NL', { idFields: PERSONAL_NUMBER }),
  eu('PL', { idFields: PERSONAL_NUMBER }),
  eu('PT'),
  eu('RO', { idFields: PERSONAL_NUMBER }),
  eu('SK'),
  eu('SI'),
  eu('ES'),
  eu('SE', { idFields: PERSONAL_NUMBER }),
  eu('HU'),
  // European Economic Area
  eu('IS', { idFields: PERSONAL_NUMBER, updatedAt: '2026-04-14T00:00:00Z' }),
  eu('LI'),
  eu('NO', { idFields: PERSONAL_NUMBER }),
  {
    code: 'CH',
    updatedAt: RELEASE,
    documents: {
      passport: { captureMethods: CHIP },
      id_card: { captureMethods: MRZ },
      driving_licence: { captureMethods: PHOTO },
      residence_permit: { captureMethods: CHIP },
    },
  },
  {
    code: 'GB',
    updatedAt: '2026-01-12T00:00:00Z',
    documents: {
      passport: { captureMethods: CHIP },
      driving_licence: { captureMethods: PHOTO, extraFields: ['address'] },
      // Biometric residence permits expired at the end of 2024 (replaced by eVisas); kept for operators
      // who still accept them.
      residence_permit: { captureMethods: CHIP, available: false },
    },
  },
  // North America
  {
    code: 'US',
    updatedAt: RELEASE,
    documents: {
      passport: { captureMethods: CHIP },
      driving_licence: { captureMethods: PHOTO, extraFields: ['address'] },
      // The permanent resident card carries a TD1 machine-readable zone.
      residence_permit: { captureMethods: MRZ },
    },
  },
  {
    code: 'CA',
    updatedAt: RELEASE,
    documents: {
      passport: { captureMethods: CHIP },
      driving_licence: { captureMethods: PHOTO, extraFields: ['address'] },
      residence_permit: { captureMethods: MRZ },
    },
  },
  {
    code: 'MX',
    updatedAt: RELEASE,
    documents: {
      passport: { captureMethods: CHIP },
      id_card: { captureMethods: PHOTO, extraFields: ['personalNumber', 'address'] },
    },
  },
  // Asia-Pacific
  {
    code: 'AU',
    updatedAt: RELEASE,
    documents: {
      passport: { captureMethods: CHIP },
      driving_licence: { captureMethods: PHOTO, extraFields: ['address'] },
    },
  },
  {
    code: 'NZ',
    updatedAt: RELEASE,
    documents: {
      passport: { captureMethods: CHIP },
      driving_licence: { captureMethods: PHOTO },
    },
  },
  {
    code: 'JP',
    updatedAt: RELEASE,
    documents: {
      passport: { captureMethods: CHIP },
      id_card: { captureMethods: PHOTO, extraFields: ['address'] },
      driving_licence: { captureMethods: PHOTO, extraFields: ['address'] },
      residence_permit: { captureMethods: PHOTO, extraFields: ['address'] },
    },
  },
  {
    code: 'KR',
    updatedAt: RELEASE,
    documents: {
      passport: { captureMethods: CHIP },
      id_card: { captureMethods: PHOTO, extraFields: ['address'] },
      driving_licence: { captureMethods: PHOTO },
    },
  },
  {
    code: 'SG',
    updatedAt: RELEASE,
    documents: {
      passport: { captureMethods: CHIP },
      id_card: { captureMethods: PHOTO, extraFields: ['personalNumber', 'address'] },
    },
  },
];
