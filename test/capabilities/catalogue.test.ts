import { describe, expect, test } from 'bun:test';
import countries from 'i18n-iso-countries';
import {
  buildCatalogue,
  capabilityBodies,
  normalizeCountry,
  normalizeDocumentType,
} from '../../src/capabilities/catalogue.ts';
import { COUNTRIES } from '../../src/capabilities/data/countries.ts';
import { BASE_FIELDS, CAPTURE_METHODS, DOCUMENT_TYPES } from '../../src/capabilities/data/document-types.ts';

const EU_EEA =
  'AT BE BG HR CY CZ DK EE FI FR DE GR IE IT LV LT LU MT NL PL PT RO SK SI ES SE HU IS LI NO'.split(' ');

describe('embedded dataset', () => {
  test('covers the EU/EEA, the UK, Switzerland, North America, Australia, New Zealand and Japan', () => {
    const codes = COUNTRIES.map((c) => c.code);
    expect(codes.length).toBeGreaterThanOrEqual(40);
    expect(new Set(codes).size).toBe(codes.length);
    for (const cc of [...EU_EEA, 'GB', 'CH', 'US', 'CA', 'AU', 'NZ', 'JP']) expect(codes).toContain(cc);
  });

  test('every entry is a real ISO 3166-1 code named by i18n-iso-countries, with valid data', () => {
    const catalogue = buildCatalogue([]);
    for (const c of catalogue.countries) {
      expect(countries.isValid(c.code)).toBe(true);
      expect(c.name).toBe(countries.getName(c.code, 'en')!);
      expect(c.documents.length).toBeGreaterThan(0);
      for (const d of c.documents) {
        expect(DOCUMENT_TYPES).toContain(d.documentType);
        expect(d.captureMethods.length).toBeGreaterThan(0);
        for (const m of d.captureMethods) expect(CAPTURE_METHODS).toContain(m);
        expect(d.fields).toEqual(expect.arrayContaining([...BASE_FIELDS[d.documentType]]));
        expect(['low', 'substantial', 'high']).toContain(d.assuranceLevel);
        // The one API timestamp format: ISO 8601 UTC with milliseconds, for dataset dates too.
        expect(new Date(d.updatedAt).toISOString()).toBe(d.updatedAt);
      }
    }
  });

  test("the personas' documents are supported: DE passport, FR id card and passport, NL id card", () => {
    const cat = buildCatalogue([]);
    const has = (cc: string, type: string) =>
      cat.supportedCountry(cc)?.documents.some((d) => d.documentType === type && d.available) ?? false;
    expect(has('DE', 'passport')).toBe(true);
    expect(has('FR', 'id_card')).toBe(true);
    expect(has('FR', 'passport')).toBe(true);
    expect(has('NL', 'id_card')).toBe(true);
  });

  test('a chip read reaches high assurance, an MRZ read substantial, a photo alone low', () => {
    const cat = buildCatalogue([]);
    const pair = (cc: string, type: string) =>
      cat.country(cc)!.documents.find((d) => d.documentType === type)!;
    expect(pair('DE', 'passport')).toMatchObject({
      captureMethods: ['nfc', 'mrz', 'photo'],
      assuranceLevel: 'high',
    });
    expect(pair('CH', 'id_card')).toMatchObject({
      captureMethods: ['mrz', 'photo'],
      assuranceLevel: 'substantial',
    });
    expect(pair('US', 'driving_licence')).toMatchObject({ captureMethods: ['photo'], assuranceLevel: 'low' });
    expect(pair('DE', 'id_card').fields).toContain('address');
  });
});

describe('overrides', () => {
  const at = Date.UTC(2026, 5, 1, 12) / 1000;

  test('an override turns a pair off or on and dates it', () => {
    const cat = buildCatalogue([
      { country: 'DE', documentType: 'passport', available: false, updatedAt: at },
      { country: 'GB', documentType: 'residence_permit', available: true, updatedAt: at },
    ]);
    const de = cat.country('DE')!.documents.find((d) => d.documentType === 'passport')!;
    expect(de.available).toBe(false);
    expect(de.updatedAt).toBe('2026-06-01T12:00:00.000Z');
    const gb = cat.country('GB')!.documents.find((d) => d.documentType === 'residence_permit')!;
    expect(gb.available).toBe(true);
  });

  test('overrides for pairs the dataset does not hold are ignored', () => {
    const cat = buildCatalogue([
      { country: 'DK', documentType: 'id_card', available: true, updatedAt: at },
      { country: 'BR', documentType: 'passport', available: true, updatedAt: at },
    ]);
    expect(cat.country('DK')!.documents.map((d) => d.documentType)).not.toContain('id_card');
    expect(cat.country('BR')).toBeUndefined();
  });

  test('a country whose every document is off leaves the public bodies entirely', () => {
    const off = DOCUMENT_TYPES.map((documentType) => ({
      country: 'NL',
      documentType,
      available: false,
      updatedAt: at,
    }));
    const cat = buildCatalogue(off);
    expect(cat.country('NL')).toBeDefined();
    expect(cat.supportedCountry('NL')).toBeUndefined();
    const bodies = capabilityBodies(cat);
    expect(bodies.countries.data.countries.map((c) => c.code)).not.toContain('NL');
    expect(bodies.country('NL')).toBeUndefined();
    expect(bodies.pair('NL', 'passport')).toBeUndefined();
  });

  test('document counts in the list are the available types only', () => {
    const before = capabilityBodies(buildCatalogue([]));
    const after = capabilityBodies(
      buildCatalogue([{ country: 'FR', documentType: 'driving_licence', available: false, updatedAt: at }]),
    );
    const fr = (b: typeof before) => b.countries.data.countries.find((c) => c.code === 'FR')!.documentTypes;
    expect(fr(after)).toBe(fr(before) - 1);
    expect(after.country('FR')!.data.documentTypes.map((d) => d.type)).toEqual([
      'passport',
      'id_card',
      'residence_permit',
    ]);
  });
});

describe('input normalisation', () => {
  test('country codes are two ASCII letters, upper-cased', () => {
    expect(normalizeCountry('de')).toBe('DE');
    expect(normalizeCountry('De')).toBe('DE');
    for (const bad of ['', 'D', 'DEU', '1!', '\0', 'D\0', 'ÄÖ', ' DE', 'de\n', 'x'.repeat(10_000)])
      expect(normalizeCountry(bad)).toBeUndefined();
  });

  test('document types are one of the four, case-insensitively', () => {
    expect(normalizeDocumentType('ID_CARD')).toBe('id_card');
    expect(normalizeDocumentType('passport')).toBe('passport');
    for (const bad of ['', 'visa', 'id-card', 'passport ', '__proto__', 'constructor', 'toString'])
      expect(normalizeDocumentType(bad)).toBeUndefined();
  });
});
