/**
 * How long relying parties may cache the JWKS (`Cache-Control: max-age`). A next key must be published
 * at least this long before it signs, or a relying party holding a cached key set rejects its tokens.
 */
export const JWKS_MAX_AGE_SECONDS = 300;
