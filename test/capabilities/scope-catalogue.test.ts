import { describe, expect, test } from 'bun:test';
import {
  CLAIMS_SUPPORTED,
  claimsForScopes,
  documentFieldsForScopes,
  isAllowedIn,
  SCOPE_CATALOGUE,
  scopeInfo,
  scopesForEnvironment,
} from '../../src/capabilities/scope-catalogue.ts';
import { SCOPES } from '../../src/capabilities/scopes.ts';

// The 26 scopes of interface.md, in its order, and the classes of DESIGN.md §5.
const INTERFACE_SCOPES =
  'openid profile email emails phone phones legal_name age age_over_18 date_of_birth nationality identity_verified identity_assurance_level liveness_verified face_match_verified profile_photo profile_photo_verified identity_documents document_type document_issuing_country document_expiry_date document_validity document_verified document_verified_at document_number_masked document_number_full'.split(
    ' ',
  );
const BASIC = ['openid', 'profile', 'email', 'emails', 'phone', 'phones'];
const RESTRICTED = ['document_number_full'];

const CLAIMS: Record<string, string[]> = {
  openid: ['sub'],
  profile: ['name', 'given_name', 'family_name', 'preferred_username', 'locale', 'updated_at'],
  email: ['email', 'email_verified'],
  emails: ['emails'],
  phone: ['phone_number', 'phone_number_verified'],
  phones: ['phone_numbers'],
  legal_name: ['legal_name', 'legal_given_name', 'legal_family_name'],
  age: ['age'],
  age_over_18: ['age_over_18'],
  date_of_birth: ['birthdate'],
  nationality: ['nationalities'],
  identity_verified: ['identity_verified'],
  identity_assurance_level: ['identity_assurance_level'],
  liveness_verified: ['liveness_verified'],
  face_match_verified: ['face_match_verified'],
  profile_photo: ['picture'],
  profile_photo_verified: ['picture_verified'],
  identity_documents: [],
};

const DOCUMENT_FIELDS: Record<string, string> = {
  document_type: 'documentType',
  document_issuing_country: 'issuingCountry',
  document_validity: 'validityStatus',
  document_verified: 'verified',
  document_verified_at: 'verifiedAt',
  document_expiry_date: 'expiryDate',
  document_number_masked: 'maskedDocumentNumber',
  document_number_full: 'documentNumber',
};

describe('scope catalogue', () => {
  test('holds every scope of the interface exactly once, in its order', () => {
    expect(SCOPES as readonly string[]).toEqual(INTERFACE_SCOPES);
    expect(SCOPE_CATALOGUE.map((s) => s.name)).toEqual(INTERFACE_SCOPES as never);
  });

  test('sensitivity classes follow the design', () => {
    for (const s of SCOPE_CATALOGUE) {
      const expected = RESTRICTED.includes(s.name)
        ? 'restricted'
        : BASIC.includes(s.name)
          ? 'basic'
          : 'sensitive';
      expect(`${s.name}:${s.sensitivity}`).toBe(`${s.name}:${expected}`);
    }
  });

  test('claims follow the scope → claims mapping; document scopes share the document claim', () => {
    for (const s of SCOPE_CATALOGUE) {
      if (s.name.startsWith('document_')) {
        expect(s.claims).toEqual(['document']);
        expect(s.documentFields as readonly string[]).toEqual([DOCUMENT_FIELDS[s.name]!]);
      } else {
        expect(s.claims).toEqual(CLAIMS[s.name]!);
        expect(s.documentFields).toEqual([]);
      }
    }
  });

  test('document scopes need identity_documents; nothing else needs anything, not even openid', () => {
    for (const s of SCOPE_CATALOGUE)
      expect(s.requires).toEqual(s.name.startsWith('document_') ? ['identity_documents'] : []);
  });

  test('document_number_full is production only; every other scope is in both environments', () => {
    for (const s of SCOPE_CATALOGUE)
      expect(s.environments).toEqual(
        s.name === 'document_number_full' ? ['production'] : ['sandbox', 'production'],
      );
    expect(scopesForEnvironment('sandbox')).not.toContain('document_number_full');
    expect(scopesForEnvironment('sandbox')).toHaveLength(25);
    expect(scopesForEnvironment('production')).toHaveLength(26);
    expect(isAllowedIn('document_number_full', 'sandbox')).toBe(false);
    expect(isAllowedIn('document_number_full', 'production')).toBe(true);
    expect(isAllowedIn('not_a_scope', 'production')).toBe(false);
  });

  test('every scope has words for the person and for the developer', () => {
    for (const s of SCOPE_CATALOGUE) {
      expect(s.consentText.length).toBeGreaterThan(8);
      expect(s.description.length).toBeGreaterThan(s.consentText.length / 2);
      // Consent text is for people: no claim names or code formatting.
      expect(s.consentText).not.toMatch(/[`_{}]/);
    }
    expect(scopeInfo('date_of_birth')?.consentText).toBe('Your date of birth');
  });

  test('lookups', () => {
    expect(scopeInfo('email')?.claims).toEqual(['email', 'email_verified']);
    expect(scopeInfo('EMAIL')).toBeUndefined();
    expect(scopeInfo('__proto__')).toBeUndefined();
    expect(claimsForScopes(['openid', 'email', 'email', 'nope'])).toEqual(['sub', 'email', 'email_verified']);
    expect(claimsForScopes(['document_type', 'document_validity'])).toEqual(['document']);
    expect(
      documentFieldsForScopes(['identity_documents', 'document_type', 'document_number_masked']),
    ).toEqual(['documentReference', 'displayName', 'documentType', 'maskedDocumentNumber']);
    expect(CLAIMS_SUPPORTED).toContain('sub');
    expect(CLAIMS_SUPPORTED).toContain('document');
    expect(new Set(CLAIMS_SUPPORTED).size).toBe(CLAIMS_SUPPORTED.length);
  });

  test('entries cannot be changed by an importer', () => {
    const email = scopeInfo('email')!;
    expect(() => {
      (email as { sensitivity: string }).sensitivity = 'restricted';
    }).toThrow();
    expect(() => (email.claims as string[]).push('x')).toThrow();
  });
});
