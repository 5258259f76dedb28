import countries from 'i18n-iso-countries/index.js';
import { countryName } from '../capabilities/catalogue.ts';
import { type Config, SANDBOX_TRUST_FRAMEWORK } from '../config/schema.ts';
import type { SharedDocument } from '../documents/document.store.ts';
import { type DocumentAccess, isShareable } from '../documents/eligibility.ts';
import { fullNumberAllowed } from '../documents/views.ts';
import type { Environment } from '../environment.ts';
import { maskNumber } from '../persons/persons.ts';
import { isoTime } from '../platform/clock.ts';

/**
 * The `verification` element of OpenID Identity Assurance Schema Definition 1.0 §5.4 built from what
 * Verity holds: the trust framework, the person's assurance level, when the documents behind it were
 * checked, and an evidence of type `document` (§5.4.4.2) per document the application may see, with
 * how and when it was checked (`check_details`) when upstream recorded it. What Verity does not hold
 * (`verification_process`, the issuer's name) is left out, never made up.
 */

export interface DocumentDetails {
  type: string;
  document_number?: string;
  date_of_issuance?: string;
  date_of_expiry?: string;
  issuer?: { country?: string; country_code?: string };
}

/** One check of the document: a registered `check_method` (persons/check-methods.ts) and its time. */
export interface CheckDetail {
  check_method: string;
  /** ISO 8601, UTC. */
  time?: string;
}

export interface DocumentEvidence {
  type: 'document';
  check_details?: CheckDetail[];
  document_details?: DocumentDetails;
}

export interface Verification {
  trust_framework: string;
  assurance_level?: string;
  /** ISO 8601, UTC. */
  time?: string;
  evidence?: DocumentEvidence[];
}

/** Verity's document types as the identifiers the IDA working group lists (passport, idcard, …). */
export const IDA_DOCUMENT_TYPES: Record<SharedDocument['documentType'], string> = {
  passport: 'passport',
  id_card: 'idcard',
  driving_licence: 'driving_permit',
  residence_permit: 'residence_permit',
};

/**
 * The trust framework of an environment's verified data: sandbox personas are fictional, so sandbox
 * says so; production names `[assurance] trust_framework`, and offers nothing while it is empty.
 */
export function trustFrameworkFor(config: Config, environment: Environment): string | undefined {
  if (environment === 'sandbox') return SANDBOX_TRUST_FRAMEWORK;
  return config.assurance.trust_framework || undefined;
}

/** Which parts of a document the approved scopes release (the same scopes as the documents API). */
export interface EvidenceScopes {
  scopes: ReadonlySet<string>;
  access: DocumentAccess;
}

/**
 * One document as evidence, with only the fields approved scopes release. How the document was checked
 * says how the identity was verified, so it comes with `identity_verified`; the time of the check with
 * `document_verified_at`. The number is masked unless the full number is allowed (production,
 * `document_number_full`, approved application); the date of issuance comes with the date of expiry
 * (`document_expiry_date`). Without `document_type` there is no `document_details`, which the schema
 * cannot have without its `type`.
 */
export function documentEvidence(doc: SharedDocument, { scopes, access }: EvidenceScopes): DocumentEvidence {
  const evidence: DocumentEvidence = { type: 'document' };
  if (doc.checkMethod && scopes.has('identity_verified')) {
    const check: CheckDetail = { check_method: doc.checkMethod };
    if (doc.verifiedAt !== null && scopes.has('document_verified_at')) check.time = isoTime(doc.verifiedAt);
    evidence.check_details = [check];
  }
  if (!scopes.has('document_type')) return evidence;
  const details: DocumentDetails = { type: IDA_DOCUMENT_TYPES[doc.documentType] };
  if (fullNumberAllowed(scopes, access)) details.document_number = doc.documentNumber;
  else if (scopes.has('document_number_masked')) details.document_number = maskNumber(doc.documentNumber);
  if (scopes.has('document_issuing_country')) {
    // Alpha-3 as §5.4.4.2 asks; the name is the address `country` element's.
    const alpha3 = countries.alpha2ToAlpha3(doc.issuingCountry);
    details.issuer = { country: countryName(doc.issuingCountry), country_code: alpha3 ?? doc.issuingCountry };
  }
  if (scopes.has('document_expiry_date')) {
    if (doc.issueDate) details.date_of_issuance = doc.issueDate;
    details.date_of_expiry = doc.expiryDate;
  }
  evidence.document_details = details;
  return evidence;
}

export interface VerificationInput extends EvidenceScopes {
  trustFramework: string;
  assuranceLevel: string;
  /** The person's documents; only those the application may see become evidence. */
  documents: readonly SharedDocument[];
}

/**
 * The verification data Verity may release under these scopes (`identity_verified`, which releases
 * the trust framework and `time`, is the caller's to check): `time` is the latest check of the
 * documents the application may see; the assurance level needs `identity_assurance_level`; the
 * documents become evidence with a `document_*` scope.
 */
export function verificationFor(input: VerificationInput): Verification {
  const { scopes } = input;
  const out: Verification = { trust_framework: input.trustFramework };
  if (scopes.has('identity_assurance_level')) out.assurance_level = input.assuranceLevel;
  const shown = input.documents.filter((d) => isShareable(d, input.access));
  const checked = shown.map((d) => d.verifiedAt).filter((t): t is number => t !== null);
  if (checked.length) out.time = isoTime(Math.max(...checked));
  if (shown.length && [...scopes].some((s) => s.startsWith('document_')))
    out.evidence = shown.map((d) => documentEvidence(d, input));
  return out;
}
