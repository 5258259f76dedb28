import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { flag, time } from './columns.ts';

export const persons = sqliteTable(
  'persons',
  {
    id: text('id').primaryKey(),
    /** The upstream verification process's id; re-importing it updates this row. */
    externalId: text('external_id').notNull(),
    /** Sandbox personas never mix with production persons. */
    environment: text('environment', { enum: ['sandbox', 'production'] }).notNull(),
    givenName: text('given_name'),
    familyName: text('family_name'),
    name: text('name'),
    preferredUsername: text('preferred_username'),
    locale: text('locale'),
    legalGivenName: text('legal_given_name'),
    legalFamilyName: text('legal_family_name'),
    birthdate: text('birthdate'),
    /** JSON array of ISO 3166-1 alpha-2 codes. */
    nationalities: text('nationalities').notNull().default('[]'),
    /** data:image/jpeg;base64,… at most 64 KiB. */
    photo: text('photo'),
    photoVerified: flag('photo_verified').notNull().default(false),
    passwordHash: text('password_hash'),
    /**
     * SHA-256 (hex) of the hash a persons import last gave, which `password_hash` may since hold re-hashed:
     * a re-import of the same hash is no password change (src/persons/import.ts).
     */
    passwordImportDigest: text('password_import_digest'),
    assuranceLevel: text('assurance_level', { enum: ['none', 'low', 'substantial', 'high'] })
      .notNull()
      .default('none'),
    identityVerified: flag('identity_verified').notNull().default(false),
    faceTemplateRef: text('face_template_ref'),
    status: text('status', { enum: ['active', 'disabled'] })
      .notNull()
      .default('active'),
    createdAt: time('created_at').notNull(),
    updatedAt: time('updated_at').notNull(),
    /** Insertion order (person.store.ts numbers it): the tie-break among equal `created_at`. */
    seq: integer('seq').notNull().default(0),
  },
  (t) => [uniqueIndex('persons_external_id').on(t.environment, t.externalId), index('persons_seq').on(t.seq)],
);

export const personEmails = sqliteTable(
  'person_emails',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    personId: text('person_id')
      .notNull()
      .references(() => persons.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    verified: flag('verified').notNull().default(false),
    primary: flag('primary').notNull().default(false),
  },
  (t) => [uniqueIndex('person_emails_email').on(t.email), index('person_emails_person').on(t.personId)],
);

export const personPhones = sqliteTable(
  'person_phones',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    personId: text('person_id')
      .notNull()
      .references(() => persons.id, { onDelete: 'cascade' }),
    phone: text('phone').notNull(),
    verified: flag('verified').notNull().default(false),
    primary: flag('primary').notNull().default(false),
  },
  (t) => [index('person_phones_person').on(t.personId)],
);

export const identityDocuments = sqliteTable(
  'identity_documents',
  {
    id: text('id').primaryKey(),
    personId: text('person_id')
      .notNull()
      .references(() => persons.id, { onDelete: 'cascade' }),
    documentType: text('document_type', {
      enum: ['passport', 'id_card', 'driving_licence', 'residence_permit'],
    }).notNull(),
    issuingCountry: text('issuing_country').notNull(),
    documentNumber: text('document_number').notNull(),
    displayName: text('display_name').notNull(),
    /** `YYYY-MM-DD`, as the document states it; null when upstream did not give it. */
    issueDate: text('issue_date'),
    expiryDate: text('expiry_date').notNull(),
    validityStatus: text('validity_status', { enum: ['valid', 'expired', 'revoked', 'suspended'] }).notNull(),
    verified: flag('verified').notNull().default(false),
    verifiedAt: time('verified_at'),
    /** How the document was checked at `verified_at`: a registered OIDC4IDA `check_method` (persons/check-methods.ts). */
    checkMethod: text('check_method'),
    /** The person's switch on the account page. */
    shareEnabled: flag('share_enabled').notNull().default(true),
    status: text('status', { enum: ['active', 'disabled'] })
      .notNull()
      .default('active'),
    primary: flag('primary').notNull().default(false),
    attestationId: text('attestation_id').notNull(),
    proofStatus: text('proof_status', { enum: ['active', 'superseded', 'revoked'] })
      .notNull()
      .default('active'),
    createdAt: time('created_at').notNull(),
    updatedAt: time('updated_at').notNull(),
    /** Insertion order (person.store.ts numbers it): the tie-break among equal `created_at`. */
    seq: integer('seq').notNull().default(0),
  },
  (t) => [
    index('identity_documents_person').on(t.personId),
    index('identity_documents_seq').on(t.seq),
    uniqueIndex('identity_documents_natural').on(
      t.personId,
      t.documentType,
      t.issuingCountry,
      t.documentNumber,
    ),
  ],
);

/**
 * A sandbox persona's sharing switches, per identity session: personas are shared by every developer on
 * the server, so one browser's switch must not change what another's applications see. Keyed like the
 * persona's consents (consent/holder.ts), which outlive the session; removed once neither remains.
 */
export const personaDocumentSharing = sqliteTable(
  'persona_document_sharing',
  {
    sessionIdHash: text('session_id_hash').notNull(),
    documentId: text('document_id')
      .notNull()
      .references(() => identityDocuments.id, { onDelete: 'cascade' }),
    shareEnabled: flag('share_enabled').notNull(),
    updatedAt: time('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.sessionIdHash, t.documentId] })],
);
