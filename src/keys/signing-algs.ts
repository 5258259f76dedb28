/**
 * The ID-token signing algorithms: a key of each is active at all times, and each client picks one
 * (`id_token_signed_response_alg`, RFC 7591). RS256 is the default the interface requires.
 */
export const SIGNING_ALGS = ['RS256', 'ES256', 'EdDSA'] as const;
export type SigningAlg = (typeof SIGNING_ALGS)[number];
export const DEFAULT_SIGNING_ALG: SigningAlg = 'RS256';

export const isSigningAlg = (v: string): v is SigningAlg => (SIGNING_ALGS as readonly string[]).includes(v);
