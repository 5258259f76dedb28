import { OAuthError } from '../errors.ts';
import { type AssuranceLevel, isAssuranceLevel, meetsLevel } from '../persons/assurance.ts';

/**
 * The acr values of an `acr_values` parameter (OIDC Core §3.1.2.1: space-separated, in preference
 * order) that Verity knows; unknown ones are ignored. A list of none but unknown ones could never be
 * met, so it is refused before the person is asked anything.
 */
export function parseAcrValues(text: string): AssuranceLevel[] {
  const known = text.split(' ').filter(isAssuranceLevel);
  if (known.length === 0)
    throw new OAuthError(
      'invalid_request',
      'acr_values names no supported level: use none, low, substantial or high.',
    );
  return known;
}

/**
 * The lowest level a request accepts, or undefined for none. `acceptable` lists acceptable acr values
 * in preference order (from acr_values or an essential `acr` claim); levels are ordered, so any level at
 * or above the lowest one listed satisfies the request. The environment's minimum applies when the
 * request names nothing, and a request cannot go below it.
 */
export function requiredAcr(
  acceptable: readonly AssuranceLevel[] | undefined,
  minimum: AssuranceLevel | null,
): AssuranceLevel | undefined {
  const asked = acceptable?.reduce((low, l) => (meetsLevel(l, low) ? low : l));
  if (!minimum) return asked;
  return asked && meetsLevel(asked, minimum) ? asked : minimum;
}
