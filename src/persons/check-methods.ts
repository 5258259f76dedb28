/**
 * The `check_method` values the OpenID eKYC & IDA working group registers for `check_details`
 * (https://openid.net/wg/ekyc-ida/identifiers/, "Check Methods"): how evidence was validated, then how
 * the person was verified against it. Import accepts only these, so Verity never emits a value an
 * application cannot look up.
 */
export const CHECK_METHODS = [
  /** Physical inspection of the document in person. */
  'vpip',
  /** The same, including its optical characteristics under UV light. */
  'vpiruv',
  /** Inspection of an image of the document taken remotely. */
  'vri',
  /** Inspection of a digital document's properties and content. */
  'vdig',
  /** Check of the document's cryptographic security features (e.g. its chip). */
  'vcrypt',
  /** An authoritative record matching the document's data. */
  'data',
  /** Electronic authentication linked to the owner of the claims. */
  'auth',
  /** A hardware token or smartcard issued to the owner. */
  'token',
  /** Knowledge-based questions only the owner should answer. */
  'kbv',
  /** Physical comparison (e.g. of the face) by a qualified person, in person. */
  'pvp',
  /** The same with the person remote. */
  'pvr',
  /** Automated biometric comparison with the person present. */
  'bvp',
  /** Automated biometric comparison with the person remote. */
  'bvr',
] as const;
export type CheckMethod = (typeof CHECK_METHODS)[number];
