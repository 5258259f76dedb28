/** `POST /v1/oauth/token` success. No refresh token is issued. */
export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer' | string;
  /** Seconds; 900. */
  expires_in: number;
  /** Present only when `openid` was approved. */
  id_token?: string;
  /** Space-separated granted scopes. */
  scope: string;
}

export interface EmailEntry {
  email: string;
  verified?: boolean;
  primary?: boolean;
}

export interface PhoneEntry {
  phone_number: string;
  verified?: boolean;
  primary?: boolean;
}

/** The `document` claim: the approved fields of the person's primary shared document. */
export interface DocumentClaim {
  documentType?: string;
  issuingCountry?: string;
  expiryDate?: string;
  validityStatus?: string;
  verified?: boolean;
  verifiedAt?: string;
  maskedDocumentNumber?: string;
  documentNumber?: string;
  [field: string]: unknown;
}

/**
 * `GET /v1/userinfo`. Every claim except `sub` is optional: a claim that was not approved or is not
 * available is absent (`undefined`), and absence never means false. Check `=== true`, not truthiness,
 * and treat `undefined` as "unknown".
 */
export interface UserInfo {
  sub: string;
  name?: string;
  given_name?: string;
  family_name?: string;
  preferred_username?: string;
  locale?: string;
  updated_at?: number;
  email?: string;
  email_verified?: boolean;
  emails?: EmailEntry[];
  phone_number?: string;
  phone_number_verified?: boolean;
  phone_numbers?: PhoneEntry[];
  legal_name?: string;
  legal_given_name?: string;
  legal_family_name?: string;
  age?: number;
  age_over_18?: boolean;
  /** `YYYY-MM-DD`. */
  birthdate?: string;
  /** ISO 3166-1 alpha-2 codes. */
  nationalities?: string[];
  identity_verified?: boolean;
  identity_assurance_level?: 'none' | 'low' | 'substantial' | 'high' | string;
  liveness_verified?: boolean;
  face_match_verified?: boolean;
  /** A `data:image/jpeg;base64,…` URL. */
  picture?: string;
  picture_verified?: boolean;
  document?: DocumentClaim;
  /** Present when the `claims` parameter asked for it in `userinfo` (an array when it asked with one). */
  verified_claims?: VerifiedClaims | VerifiedClaims[];
  [claim: string]: unknown;
}

/** An item of `GET /v1/userinfo/identity-documents`; fields outside the approved scopes are absent. */
export interface IdentityDocumentSummary {
  /** Opaque and specific to this application. */
  documentReference: string;
  /** Within the approved scopes: "German passport" with the type and country, "Passport" with the type alone, else "Identity document". */
  displayName: string;
  documentType?: string;
  /** ISO 3166-1 alpha-2. */
  issuingCountry?: string;
  validityStatus?: string;
  verified?: boolean;
  verifiedAt?: string;
}

/**
 * `proof` is an audit reference only, not a signature over the response: do not recompute or
 * independently trust `proofHash`.
 */
export interface DocumentProof {
  type: string;
  attestationId: string;
  schemaVersion: string;
  status: string;
  proofHash: string;
}

export interface IdentityDocument extends IdentityDocumentSummary {
  /** `YYYY-MM-DD`. */
  expiryDate?: string;
  maskedDocumentNumber?: string;
  documentNumber?: string;
  proof: DocumentProof;
}

/** The discovery fields the SDK uses (OpenID Connect Discovery 1.0 names). */
export interface DiscoveryDocument {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  userinfo_endpoint: string;
  jwks_uri: string;
  /** RP-initiated logout (`endSessionUrl`). */
  end_session_endpoint?: string;
  [field: string]: unknown;
}

/** An evidence of type `document` (OpenID Identity Assurance Schema Definition 1.0 §5.4.4.2). */
export interface DocumentEvidence {
  type: 'document';
  document_details?: {
    /** `passport`, `idcard`, `driving_permit`, `residence_permit`. */
    type: string;
    /** Masked (`******T47`) unless `document_number_full` was approved in production. */
    document_number?: string;
    /** `YYYY-MM-DD`. */
    date_of_issuance?: string;
    /** `YYYY-MM-DD`. */
    date_of_expiry?: string;
    /** `country`: the country's English name; `country_code`: ISO 3166-1 alpha-3. */
    issuer?: { country?: string; country_code?: string };
    [element: string]: unknown;
  };
  /** How the document was checked: a registered `check_method` (`vcrypt`, `vpip`, `vri`, …), and when. */
  check_details?: { check_method: string; time?: string; [element: string]: unknown }[];
  [element: string]: unknown;
}

/** How the claims beside it were verified: only the elements that were asked for and matched. */
export interface Verification {
  /** `verity_sandbox` for sandbox personas; in production the operator's configured framework. */
  trust_framework: string;
  assurance_level?: 'none' | 'low' | 'substantial' | 'high' | string;
  /** ISO 8601, UTC: the latest check of the documents behind the verification. */
  time?: string;
  evidence?: DocumentEvidence[];
  [element: string]: unknown;
}

/** One `verified_claims` object: verified data, never to be mixed up with the unverified claims beside it. */
export interface VerifiedClaims {
  verification: Verification;
  /** The verified claims that were asked for, approved and held (`given_name` and `family_name` are legal names). */
  claims: {
    given_name?: string;
    family_name?: string;
    /** `YYYY-MM-DD`. */
    birthdate?: string;
    nationalities?: string[];
    [claim: string]: unknown;
  };
}
