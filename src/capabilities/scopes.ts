/** The 26 scopes of the interface, in its order. Descriptions, claims and sensitivity: see scope-catalogue.ts. */
export const SCOPES = [
  'openid',
  'profile',
  'email',
  'emails',
  'phone',
  'phones',
  'legal_name',
  'age',
  'age_over_18',
  'date_of_birth',
  'nationality',
  'identity_verified',
  'identity_assurance_level',
  'liveness_verified',
  'face_match_verified',
  'profile_photo',
  'profile_photo_verified',
  'identity_documents',
  'document_type',
  'document_issuing_country',
  'document_expiry_date',
  'document_validity',
  'document_verified',
  'document_verified_at',
  'document_number_masked',
  'document_number_full',
] as const;
export type Scope = (typeof SCOPES)[number];

export const isScope = (s: string): s is Scope => (SCOPES as readonly string[]).includes(s);

/** Never granted in sandbox; in production only with the application's approval flag. */
export const RESTRICTED_SCOPES: readonly Scope[] = ['document_number_full'];
