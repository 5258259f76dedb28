import type { Environment } from '../environment.ts';
import { SCOPES, type Scope } from './scopes.ts';

/**
 * What every scope means: the words a person reads at consent, the words a developer reads in the portal
 * and in `/v1/capabilities/scopes`, the UserInfo claims it releases, the documents-API fields it adds,
 * its sensitivity class, the scopes it needs beside it, and the environments that may grant it.
 * DESIGN.md §5 ("Scope → claims", "Document fields per scope", "Scope dependencies and sensitivity").
 */

export type Sensitivity = 'basic' | 'sensitive' | 'restricted';

/** A documents-API field that a `document_*` scope releases (the others appear always). */
export type DocumentField =
  | 'documentType'
  | 'issuingCountry'
  | 'expiryDate'
  | 'validityStatus'
  | 'verified'
  | 'verifiedAt'
  | 'maskedDocumentNumber'
  | 'documentNumber';

export interface ScopeInfo {
  name: Scope;
  /** For the person at consent ("Your date of birth"). */
  consentText: string;
  /** For the developer: what the scope releases and where. */
  description: string;
  /** UserInfo claim names the scope releases (the `document_*` scopes share the `document` claim). */
  claims: readonly string[];
  /** Fields the scope adds to the documents API and to the `document` claim. */
  documentFields: readonly DocumentField[];
  sensitivity: Sensitivity;
  /** Scopes that must be granted with this one for its documents-API fields to appear. */
  requires: readonly Scope[];
  environments: readonly Environment[];
}

const BOTH: readonly Environment[] = ['sandbox', 'production'];

/** Fields the documents API shows whatever `document_*` scopes were granted. */
export const ALWAYS_DOCUMENT_FIELDS = ['documentReference', 'displayName'] as const;

type Entry = Omit<ScopeInfo, 'name' | 'documentFields' | 'requires' | 'environments'> &
  Partial<Pick<ScopeInfo, 'documentFields' | 'requires' | 'environments'>>;

const documentScope = (field: DocumentField, consentText: string, what: string): Entry => ({
  consentText,
  description: `${what} Adds \`${field}\` to the documents API (with \`identity_documents\`) and to the \`document\` claim in UserInfo.`,
  claims: ['document'],
  documentFields: [field],
  sensitivity: 'sensitive',
  requires: ['identity_documents'],
});

const ENTRIES: Record<Scope, Entry> = {
  openid: {
    consentText: 'Sign you in with your account, using an identifier only this application sees',
    description:
      'OpenID Connect sign-in: an ID token is issued with the token response. `sub` is pairwise (different for every application). UserInfo works without it.',
    claims: ['sub'],
    sensitivity: 'basic',
  },
  profile: {
    consentText: 'Your name, username and preferred language',
    description: 'Basic profile claims as chosen by the person, not verified against a document.',
    claims: ['name', 'given_name', 'family_name', 'preferred_username', 'locale', 'updated_at'],
    sensitivity: 'basic',
  },
  email: {
    consentText: 'Your primary email address',
    description: 'The primary email address and whether it has been verified.',
    claims: ['email', 'email_verified'],
    sensitivity: 'basic',
  },
  emails: {
    consentText: 'All your email addresses',
    description: 'Every email address of the person as a list of `{ email, verified, primary }`.',
    claims: ['emails'],
    sensitivity: 'basic',
  },
  phone: {
    consentText: 'Your primary phone number',
    description: 'The primary phone number (E.164) and whether it has been verified.',
    claims: ['phone_number', 'phone_number_verified'],
    sensitivity: 'basic',
  },
  phones: {
    consentText: 'All your phone numbers',
    description: 'Every phone number of the person as a list of `{ phone_number, verified, primary }`.',
    claims: ['phone_numbers'],
    sensitivity: 'basic',
  },
  legal_name: {
    consentText: 'Your legal name, as it appears on your identity documents',
    description: 'The verified legal name, as on the identity document it was verified from.',
    claims: ['legal_name', 'legal_given_name', 'legal_family_name'],
    sensitivity: 'sensitive',
  },
  age: {
    consentText: 'Your age in years',
    description: 'Age in whole years, computed from the verified date of birth at the time of the request.',
    claims: ['age'],
    sensitivity: 'sensitive',
  },
  age_over_18: {
    consentText: 'Whether you are 18 or older (not your date of birth)',
    description: 'A boolean: whether the person is at least 18, without revealing the date of birth.',
    claims: ['age_over_18'],
    sensitivity: 'sensitive',
  },
  date_of_birth: {
    consentText: 'Your date of birth',
    description: 'The verified date of birth as `birthdate` (`YYYY-MM-DD`).',
    claims: ['birthdate'],
    sensitivity: 'sensitive',
  },
  nationality: {
    consentText: 'Your nationality',
    description: 'Verified nationalities as a list of ISO 3166-1 alpha-2 codes.',
    claims: ['nationalities'],
    sensitivity: 'sensitive',
  },
  identity_verified: {
    consentText: 'Whether and how your identity has been verified',
    description:
      'A boolean: whether the identity of the person has been verified from a document. In `verified_claims` it also releases how each document was checked (`check_details[].check_method`).',
    claims: ['identity_verified'],
    sensitivity: 'sensitive',
  },
  identity_assurance_level: {
    consentText: 'How strongly your identity has been verified',
    description: 'The identity assurance level reached: `none`, `low`, `substantial` or `high`.',
    claims: ['identity_assurance_level'],
    sensitivity: 'sensitive',
  },
  liveness_verified: {
    consentText: 'Whether a live person was present when you signed in just now',
    description: 'A boolean: whether the face assurance of this authorization passed its liveness check.',
    claims: ['liveness_verified'],
    sensitivity: 'sensitive',
  },
  face_match_verified: {
    consentText: 'Whether your face matched your account when you signed in just now',
    description:
      "A boolean: whether the face captured in this authorization matched the account's reference face.",
    claims: ['face_match_verified'],
    sensitivity: 'sensitive',
  },
  profile_photo: {
    consentText: 'Your profile photo',
    description: 'The profile photo as `picture`, a `data:image/jpeg;base64,…` URL of at most 64 KiB.',
    claims: ['picture'],
    sensitivity: 'sensitive',
  },
  profile_photo_verified: {
    consentText: 'Whether your profile photo has been confirmed to show you',
    description:
      'A boolean `picture_verified`: whether the profile photo was matched against the verified face.',
    claims: ['picture_verified'],
    sensitivity: 'sensitive',
  },
  identity_documents: {
    consentText: 'The identity documents you choose to share',
    description:
      'Access to `/v1/userinfo/identity-documents`: the active, verified documents the person shares and the application policy allows. Each shows `documentReference` and `displayName`; the `document_*` scopes add fields.',
    claims: [],
    sensitivity: 'sensitive',
  },
  document_type: documentScope(
    'documentType',
    'The type of your identity document (for example, passport)',
    'The document type: `passport`, `id_card`, `driving_licence` or `residence_permit`.',
  ),
  document_issuing_country: documentScope(
    'issuingCountry',
    'The country that issued your identity document',
    'The issuing country as an ISO 3166-1 alpha-2 code.',
  ),
  document_expiry_date: documentScope(
    'expiryDate',
    'When your identity document was issued and when it expires',
    'The expiry date (`YYYY-MM-DD`); in `verified_claims` also the date of issuance (`date_of_issuance`).',
  ),
  document_validity: documentScope(
    'validityStatus',
    'Whether your identity document is still valid',
    'The validity status: `valid`, `expired`, `revoked` or `suspended`.',
  ),
  document_verified: documentScope(
    'verified',
    'Whether your identity document has been verified',
    'A boolean: whether the document has been verified.',
  ),
  document_verified_at: documentScope(
    'verifiedAt',
    'When your identity document was verified',
    'When the document was verified (ISO 8601 timestamp); in `verified_claims` also the time of its check (`check_details[].time`).',
  ),
  document_number_masked: documentScope(
    'maskedDocumentNumber',
    'Part of your document number, with most of it hidden',
    'The document number with all but the last characters masked.',
  ),
  document_number_full: {
    ...documentScope(
      'documentNumber',
      'Your full document number',
      'The full document number. Production only, and only for applications an operator has approved for it.',
    ),
    sensitivity: 'restricted',
    environments: ['production'],
  },
};

/** Every scope of the interface, in its order. */
export const SCOPE_CATALOGUE: readonly ScopeInfo[] = SCOPES.map((name) => {
  const e = ENTRIES[name];
  return Object.freeze({
    name,
    consentText: e.consentText,
    description: e.description,
    claims: Object.freeze([...e.claims]),
    documentFields: Object.freeze([...(e.documentFields ?? [])]),
    sensitivity: e.sensitivity,
    requires: Object.freeze([...(e.requires ?? [])]),
    environments: Object.freeze([...(e.environments ?? BOTH)]),
  });
});

const BY_NAME = new Map<string, ScopeInfo>(SCOPE_CATALOGUE.map((s) => [s.name, s]));

/** The catalogue entry of a scope, or undefined for a name that is not a scope. */
export const scopeInfo = (name: string): ScopeInfo | undefined => BY_NAME.get(name);

/** Scopes an environment may grant (sandbox never grants `document_number_full`). */
export const scopesForEnvironment = (env: Environment): Scope[] =>
  SCOPE_CATALOGUE.filter((s) => s.environments.includes(env)).map((s) => s.name);

export const isAllowedIn = (scope: string, env: Environment): boolean =>
  scopeInfo(scope)?.environments.includes(env) ?? false;

/** UserInfo claim names released by a set of scopes, without duplicates, in catalogue order. */
export function claimsForScopes(scopes: Iterable<string>): string[] {
  const granted = new Set(scopes);
  const out = new Set<string>();
  for (const s of SCOPE_CATALOGUE) if (granted.has(s.name)) for (const c of s.claims) out.add(c);
  return [...out];
}

/**
 * Document fields visible for a set of scopes: always `documentReference` and `displayName`, plus each
 * granted `document_*` scope's field. Whether `identity_documents` is needed (documents API) or not
 * (the `document` claim) is the caller's rule.
 */
export function documentFieldsForScopes(scopes: Iterable<string>): string[] {
  return [...ALWAYS_DOCUMENT_FIELDS, ...scopedDocumentFields(scopes)];
}

/** The fields the granted `document_*` scopes release, in catalogue order. */
export function scopedDocumentFields(scopes: Iterable<string>): DocumentField[] {
  const granted = new Set(scopes);
  const out: DocumentField[] = [];
  for (const s of SCOPE_CATALOGUE) if (granted.has(s.name)) out.push(...s.documentFields);
  return out;
}

/** Every claim name any scope can release, for discovery's `claims_supported`. */
export const CLAIMS_SUPPORTED: readonly string[] = claimsForScopes(SCOPES);

/** The public body item of `/v1/capabilities/scopes`. */
export const publicScope = (s: ScopeInfo) => ({
  name: s.name,
  description: s.description,
  claims: [...s.claims],
  sensitivity: s.sensitivity,
  requires: [...s.requires],
  environments: [...s.environments],
});
