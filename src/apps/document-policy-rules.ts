import countries from 'i18n-iso-countries/index.js';
import { ruleViolation } from './rule-error.ts';

export const DOCUMENT_TYPES = ['passport', 'id_card', 'driving_licence', 'residence_permit'] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];

/** Every ISO 3166-1 alpha-2 code, sorted: the default policy allows documents of any country. */
export const ALL_COUNTRIES: readonly string[] = Object.keys(countries.getAlpha2Codes()).sort();

function words(input: string | readonly string[]): string[] {
  return (typeof input === 'string' ? input.split(/[\s,]+/) : [...input]).filter(Boolean);
}

/**
 * The document types an environment may receive. "all" means every type; "none" (or nothing) means
 * documents are never shared with it. Returned deduplicated in a fixed order.
 */
export function checkDocumentTypes(input: string | readonly string[]): DocumentType[] {
  const list = words(input).map((w) => w.toLowerCase());
  if (list.length === 1 && list[0] === 'all') return [...DOCUMENT_TYPES];
  if (list.length === 1 && list[0] === 'none') return [];
  for (const t of list)
    if (!(DOCUMENT_TYPES as readonly string[]).includes(t))
      throw ruleViolation('documentTypes', `unknown document type "${t}": use ${DOCUMENT_TYPES.join(', ')}`);
  return DOCUMENT_TYPES.filter((t) => list.includes(t));
}

/** ISO 3166-1 alpha-2 issuing countries; "all" or "none" as for types. Upper-cased, sorted. */
export function checkDocumentCountries(input: string | readonly string[]): string[] {
  const list = words(input);
  if (list.length === 1 && list[0]!.toLowerCase() === 'all') return [...ALL_COUNTRIES];
  if (list.length === 1 && list[0]!.toLowerCase() === 'none') return [];
  const codes = list.map((c) => c.toUpperCase());
  for (const c of codes)
    if (!/^[A-Z]{2}$/.test(c) || !countries.isValid(c))
      throw ruleViolation('documentCountries', `"${c}" is not an ISO 3166-1 alpha-2 country code`);
  return [...new Set(codes)].sort();
}
