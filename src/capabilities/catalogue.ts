import countries from 'i18n-iso-countries';
import en from 'i18n-iso-countries/langs/en.json' with { type: 'json' };
import { isoTime } from '../platform/clock.ts';
import { COUNTRIES, type CountryEntry } from './data/countries.ts';
import {
  type AssuranceLevel,
  assuranceFor,
  BASE_FIELDS,
  type CaptureMethod,
  DOCUMENT_TYPES,
  type DocumentType,
  isDocumentType,
} from './data/document-types.ts';

countries.registerLocale(en);

/** An operator's availability decision for one country-document pair (times in unix seconds). */
export interface Override {
  country: string;
  documentType: string;
  available: boolean;
  updatedAt: number;
}

/** One country-document pair after overrides: the body of the pair endpoint. */
export interface Capability {
  country: string;
  documentType: DocumentType;
  available: boolean;
  captureMethods: CaptureMethod[];
  fields: string[];
  assuranceLevel: AssuranceLevel;
  /** ISO 8601. */
  updatedAt: string;
}

export interface CountryCapabilities {
  code: string;
  name: string;
  /** Every pair of the dataset, available or not, in DOCUMENT_TYPES order. */
  documents: Capability[];
}

/** The effective capabilities: the embedded dataset with the operator's overrides applied. */
export interface Catalogue {
  countries: CountryCapabilities[];
  country(code: string): CountryCapabilities | undefined;
  /** A country with at least one available document type. */
  supportedCountry(code: string): CountryCapabilities | undefined;
}

/** "de" → "DE"; anything but two ASCII letters → undefined. */
export function normalizeCountry(input: string): string | undefined {
  return /^[A-Za-z]{2}$/.test(input) ? input.toUpperCase() : undefined;
}

/** "ID_CARD" → "id_card"; anything but one of the four types → undefined. */
export function normalizeDocumentType(input: string): DocumentType | undefined {
  const t = input.toLowerCase();
  return isDocumentType(t) ? t : undefined;
}

export const countryName = (code: string): string => countries.getName(code, 'en') ?? code;

/** Pure: the same dataset and overrides always give the same catalogue. */
export function buildCatalogue(
  overrides: readonly Override[],
  dataset: readonly CountryEntry[] = COUNTRIES,
): Catalogue {
  const byPair = new Map(overrides.map((o) => [`${o.country}/${o.documentType}`, o]));
  const list: CountryCapabilities[] = [...dataset]
    .sort((a, b) => (a.code < b.code ? -1 : 1))
    .map((entry) => ({
      code: entry.code,
      name: countryName(entry.code),
      documents: DOCUMENT_TYPES.flatMap((type): Capability[] => {
        const doc = entry.documents[type];
        if (!doc) return [];
        const override = byPair.get(`${entry.code}/${type}`);
        return [
          {
            country: entry.code,
            documentType: type,
            available: override ? override.available : (doc.available ?? true),
            captureMethods: [...doc.captureMethods],
            fields: [...BASE_FIELDS[type], ...(doc.extraFields ?? [])],
            assuranceLevel: doc.assuranceLevel ?? assuranceFor(doc.captureMethods),
            updatedAt: isoTime(override ? override.updatedAt : new Date(entry.updatedAt)),
          },
        ];
      }),
    }));
  const byCode = new Map(list.map((c) => [c.code, c]));
  return {
    countries: list,
    country: (code) => byCode.get(code),
    supportedCountry(code) {
      const c = byCode.get(code);
      return c?.documents.some((d) => d.available) ? c : undefined;
    },
  };
}

/** Public bodies of DESIGN.md §5, built once per catalogue. */
export interface CapabilityBodies {
  countries: { data: { countries: { code: string; name: string; documentTypes: number }[] } };
  country(code: string):
    | {
        data: {
          code: string;
          name: string;
          documentTypes: { type: DocumentType; captureMethods: CaptureMethod[] }[];
        };
      }
    | undefined;
  pair(code: string, type: DocumentType): { data: Capability } | undefined;
}

export function capabilityBodies(catalogue: Catalogue): CapabilityBodies {
  const supported = catalogue.countries
    .map((c) => ({ ...c, documents: c.documents.filter((d) => d.available) }))
    .filter((c) => c.documents.length > 0);
  const countryBodies = new Map(
    supported.map((c) => [
      c.code,
      {
        data: {
          code: c.code,
          name: c.name,
          documentTypes: c.documents.map((d) => ({
            type: d.documentType,
            captureMethods: [...d.captureMethods],
          })),
        },
      },
    ]),
  );
  const pairBodies = new Map(
    supported.flatMap((c) => c.documents.map((d) => [`${c.code}/${d.documentType}`, { data: d }] as const)),
  );
  return {
    countries: {
      data: {
        countries: supported.map((c) => ({ code: c.code, name: c.name, documentTypes: c.documents.length })),
      },
    },
    country: (code) => countryBodies.get(code),
    pair: (code, type) => pairBodies.get(`${code}/${type}`),
  };
}
