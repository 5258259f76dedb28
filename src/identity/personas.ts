import type { Db } from '../db/open.ts';
import type { SharedDocument } from '../documents/document.store.ts';
import type { AssuranceLevel } from '../persons/assurance.ts';
import type { CheckMethod } from '../persons/check-methods.ts';
import { createPersonStore } from '../persons/person.store.ts';
import { PERSONA_PHOTOS } from './persona-photos.ts';

/**
 * The built-in sandbox personas (DESIGN.md §6). Sandbox sign-in uses them instead of real accounts;
 * their data is fictional but complete, so every scope can be tried. Seeded idempotently at start as
 * `persons.environment = 'sandbox'` rows with stable ids, which never mix with production persons.
 * Emails use the reserved `.example` domain so they never collide with a real account.
 */

export type PersonaId = 'ada' | 'ben' | 'cleo' | 'dan' | 'eve' | 'finn';

/** A persona's document: the stored document's own fields, seeded as verified and shared. */
export type PersonaDocument = Pick<
  SharedDocument,
  | 'id'
  | 'documentType'
  | 'issuingCountry'
  | 'documentNumber'
  | 'displayName'
  | 'issueDate'
  | 'expiryDate'
  | 'validityStatus'
  | 'checkMethod'
  | 'primary'
>;

export interface Persona {
  key: PersonaId;
  /** `psn_sandbox_<key>`. */
  personId: string;
  name: string;
  /** What the persona is for, shown on the picker. */
  summary: string;
  givenName: string;
  familyName: string;
  preferredUsername: string;
  locale: string;
  legalGivenName: string | null;
  legalFamilyName: string | null;
  birthdate: string;
  nationalities: string[];
  photo: string | null;
  photoVerified: boolean;
  assuranceLevel: AssuranceLevel;
  identityVerified: boolean;
  emails: { email: string; verified: boolean; primary: boolean }[];
  phones: { phone: string; verified: boolean; primary: boolean }[];
  documents: PersonaDocument[];
  /** Scripted face outcome that no button can change. */
  face: 'scripted' | 'always_fail_match' | 'always_fail_liveness';
}

/** Fixed times, so the seeded data (and `updated_at` in UserInfo) is the same on every start. */
const SEEDED_AT = Date.UTC(2026, 0, 1) / 1000;
const VERIFIED_AT = Date.UTC(2025, 8, 15, 9, 30) / 1000;

const doc = (
  key: PersonaId,
  d: Omit<PersonaDocument, 'id' | 'checkMethod'> & { checkMethod: CheckMethod },
): PersonaDocument => ({
  id: `doc_sandbox_${key}_${d.documentType}_${d.issuingCountry.toLowerCase()}`,
  ...d,
});

export const PERSONAS: readonly Persona[] = [
  {
    key: 'ada',
    personId: 'psn_sandbox_ada',
    name: 'Ada Sandbox',
    summary: 'Verified adult, high assurance, German passport, two emails, phone and photo.',
    givenName: 'Ada',
    familyName: 'Sandbox',
    preferredUsername: 'ada',
    locale: 'de-DE',
    legalGivenName: 'Ada Marie',
    legalFamilyName: 'Sandbox',
    birthdate: '1990-12-10',
    nationalities: ['DE'],
    photo: PERSONA_PHOTOS.ada,
    photoVerified: true,
    assuranceLevel: 'high',
    identityVerified: true,
    emails: [
      { email: 'ada@sandbox.example', verified: true, primary: true },
      { email: 'ada.work@sandbox.example', verified: true, primary: false },
    ],
    phones: [{ phone: '+4915112345601', verified: true, primary: true }],
    documents: [
      doc('ada', {
        documentType: 'passport',
        issuingCountry: 'DE',
        documentNumber: 'C01X00T47',
        displayName: 'German passport',
        issueDate: '2021-03-15',
        expiryDate: '2031-03-14',
        validityStatus: 'valid',
        checkMethod: 'vcrypt',
        primary: true,
      }),
    ],
    face: 'scripted',
  },
  {
    key: 'ben',
    personId: 'psn_sandbox_ben',
    name: 'Ben Sandbox',
    summary: 'Verified adult, substantial assurance, valid French ID card and an expired French passport.',
    givenName: 'Ben',
    familyName: 'Sandbox',
    preferredUsername: 'ben',
    locale: 'fr-FR',
    legalGivenName: 'Benjamin',
    legalFamilyName: 'Sandbox',
    birthdate: '1985-04-22',
    nationalities: ['FR'],
    photo: PERSONA_PHOTOS.ben,
    photoVerified: true,
    assuranceLevel: 'substantial',
    identityVerified: true,
    emails: [{ email: 'ben@sandbox.example', verified: true, primary: true }],
    phones: [{ phone: '+33612345602', verified: true, primary: true }],
    documents: [
      doc('ben', {
        documentType: 'id_card',
        issuingCountry: 'FR',
        documentNumber: 'X4RTBPFW4',
        displayName: 'French identity card',
        issueDate: '2022-09-01',
        expiryDate: '2032-08-31',
        validityStatus: 'valid',
        checkMethod: 'vri',
        primary: true,
      }),
      doc('ben', {
        documentType: 'passport',
        issuingCountry: 'FR',
        documentNumber: '19AB12345',
        displayName: 'French passport',
        issueDate: '2014-01-16',
        expiryDate: '2024-01-15',
        validityStatus: 'expired',
        checkMethod: 'vpip',
        primary: false,
      }),
    ],
    face: 'scripted',
  },
  {
    key: 'cleo',
    personId: 'psn_sandbox_cleo',
    name: 'Cleo Sandbox',
    summary: 'Unverified adult, no assurance, no documents, an unverified email only.',
    givenName: 'Cleo',
    familyName: 'Sandbox',
    preferredUsername: 'cleo',
    locale: 'en-GB',
    legalGivenName: null,
    legalFamilyName: null,
    birthdate: '1998-02-03',
    nationalities: [],
    photo: null,
    photoVerified: false,
    assuranceLevel: 'none',
    identityVerified: false,
    emails: [{ email: 'cleo@sandbox.example', verified: false, primary: true }],
    phones: [],
    documents: [],
    face: 'scripted',
  },
  {
    key: 'dan',
    personId: 'psn_sandbox_dan',
    name: 'Dan Sandbox',
    summary: 'Verified minor (16), substantial assurance, Dutch ID card.',
    givenName: 'Dan',
    familyName: 'Sandbox',
    preferredUsername: 'dan',
    locale: 'nl-NL',
    legalGivenName: 'Daan',
    legalFamilyName: 'Sandbox',
    // 16 from June 2026 until June 2027, so `age_over_18` is false throughout.
    birthdate: '2010-06-01',
    nationalities: ['NL'],
    photo: PERSONA_PHOTOS.dan,
    photoVerified: true,
    assuranceLevel: 'substantial',
    identityVerified: true,
    emails: [{ email: 'dan@sandbox.example', verified: true, primary: true }],
    phones: [{ phone: '+31612345604', verified: true, primary: true }],
    documents: [
      doc('dan', {
        documentType: 'id_card',
        issuingCountry: 'NL',
        documentNumber: 'IRX5D7L29',
        displayName: 'Dutch identity card',
        issueDate: '2025-06-01',
        expiryDate: '2030-05-31',
        validityStatus: 'valid',
        checkMethod: 'vcrypt',
        primary: true,
      }),
    ],
    face: 'scripted',
  },
  {
    key: 'eve',
    personId: 'psn_sandbox_eve',
    name: 'Eve Sandbox',
    summary: 'Verified adult whose face match always fails.',
    givenName: 'Eve',
    familyName: 'Sandbox',
    preferredUsername: 'eve',
    locale: 'en-GB',
    legalGivenName: 'Eve',
    legalFamilyName: 'Sandbox',
    birthdate: '1979-09-30',
    nationalities: ['GB'],
    photo: PERSONA_PHOTOS.eve,
    photoVerified: true,
    assuranceLevel: 'substantial',
    identityVerified: true,
    emails: [{ email: 'eve@sandbox.example', verified: true, primary: true }],
    phones: [{ phone: '+447700900605', verified: true, primary: true }],
    documents: [
      doc('eve', {
        documentType: 'passport',
        issuingCountry: 'GB',
        documentNumber: '925076473',
        displayName: 'British passport',
        issueDate: '2019-11-21',
        expiryDate: '2029-11-20',
        validityStatus: 'valid',
        checkMethod: 'vri',
        primary: true,
      }),
    ],
    face: 'always_fail_match',
  },
  {
    key: 'finn',
    personId: 'psn_sandbox_finn',
    name: 'Finn Sandbox',
    summary: 'Verified adult whose liveness check always fails.',
    givenName: 'Finn',
    familyName: 'Sandbox',
    preferredUsername: 'finn',
    locale: 'en-IE',
    legalGivenName: 'Finn',
    legalFamilyName: 'Sandbox',
    birthdate: '1993-07-07',
    nationalities: ['IE'],
    photo: PERSONA_PHOTOS.finn,
    photoVerified: true,
    assuranceLevel: 'substantial',
    identityVerified: true,
    emails: [{ email: 'finn@sandbox.example', verified: true, primary: true }],
    phones: [{ phone: '+353851234606', verified: true, primary: true }],
    documents: [
      doc('finn', {
        documentType: 'driving_licence',
        issuingCountry: 'IE',
        documentNumber: 'D1234567',
        displayName: 'Irish driving licence',
        issueDate: '2023-03-01',
        expiryDate: '2033-02-28',
        validityStatus: 'valid',
        checkMethod: 'data',
        primary: true,
      }),
    ],
    face: 'always_fail_liveness',
  },
];

export const personaByKey = (key: string): Persona | undefined => PERSONAS.find((p) => p.key === key);
export const personaById = (personId: string): Persona | undefined =>
  PERSONAS.find((p) => p.personId === personId);

/** Writes the personas, their emails, phones and documents (see the person store's `upsertPersona`). */
export function seedPersonas(db: Db): void {
  const store = createPersonStore(db);
  db.sql.transaction(() => {
    for (const p of PERSONAS)
      store.upsertPersona({
        id: p.personId,
        externalId: `sandbox:${p.key}`,
        givenName: p.givenName,
        familyName: p.familyName,
        name: p.name,
        preferredUsername: p.preferredUsername,
        locale: p.locale,
        legalGivenName: p.legalGivenName,
        legalFamilyName: p.legalFamilyName,
        birthdate: p.birthdate,
        nationalities: JSON.stringify(p.nationalities),
        photo: p.photo,
        photoVerified: p.photoVerified,
        assuranceLevel: p.assuranceLevel,
        identityVerified: p.identityVerified,
        faceTemplateRef: `sandbox:${p.key}`,
        createdAt: SEEDED_AT,
        updatedAt: SEEDED_AT,
        emails: p.emails,
        phones: p.phones,
        documents: p.documents.map((d) => ({
          id: d.id,
          documentType: d.documentType,
          issuingCountry: d.issuingCountry,
          documentNumber: d.documentNumber,
          displayName: d.displayName,
          issueDate: d.issueDate,
          expiryDate: d.expiryDate,
          validityStatus: d.validityStatus,
          verifiedAt: VERIFIED_AT,
          checkMethod: d.checkMethod,
          primary: d.primary,
          attestationId: `att_${d.id.slice('doc_'.length)}`,
        })),
      });
  });
}
