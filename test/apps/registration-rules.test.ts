import { describe, expect, test } from 'bun:test';
import { checkDocumentCountries, checkDocumentTypes } from '../../src/apps/document-policy-rules.ts';
import { checkRedirectUris, redirectUriProblem } from '../../src/apps/redirect-uri-rules.ts';
import { checkScopes, parseScopeList } from '../../src/apps/scope-rules.ts';
import { SCOPES } from '../../src/capabilities/scopes.ts';
import { ValidationError } from '../../src/errors.ts';

function violation(fn: () => unknown): ValidationError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ValidationError);
    return e as ValidationError;
  }
  throw new Error('expected a rule violation');
}

describe('redirect URI rules', () => {
  test.each([
    'https://app.example.com/callback',
    'https://app.example.com/cb?tenant=1',
    'https://app.example.com:8443/cb',
    'https://example.com',
    'https://example.com?next=1',
    'https://app.example.com/c%62',
    'https://192.0.2.10/cb',
    'http://localhost/cb',
    'http://localhost:3000/auth/callback',
    'http://127.0.0.1:8080/cb',
    'http://[::1]:8080/cb',
    'https://localhost:3000/cb',
  ])('accepts %s', (uri) => {
    expect(redirectUriProblem(uri)).toBeUndefined();
  });

  test.each([
    ['http://example.com/cb', 'must use https (http is allowed only for localhost, 127.0.0.1 and [::1])'],
    ['http://app.localhost/cb', 'must use https'],
    ['http://127.0.0.2/cb', 'must use https'],
    ['http://localhost.example.com/cb', 'must use https'],
    ['https://*.example.com/cb', 'wildcards are not allowed'],
    ['https://example.com/*', 'wildcards are not allowed'],
    ['https://example.com/cb#x', 'fragments are not allowed'],
    ['https://example.com/cb#', 'fragments are not allowed'],
    ['https://user:pw@example.com/cb', 'userinfo (user:password@) is not allowed'],
    ['https://user@example.com/cb', 'userinfo'],
    ['https://@example.com/cb', 'userinfo'],
    ['/callback', 'must be an absolute URI (relative URIs are not allowed)'],
    ['callback', 'must be an absolute URI'],
    ['//example.com/cb', 'must be an absolute URI'],
    ['https:example.com/cb', 'must be an absolute URI of the form https://host/path'],
    ['https:\\\\example.com\\cb', 'must be an absolute URI of the form'],
    ['https://example.com./cb', 'the host must not end with a dot'],
    ['http://localhost./cb', 'the host must not end with a dot'],
    ['https://EXAMPLE.com/cb', 'canonical form'],
    ['http://127.1/cb', 'canonical form'],
    ['http://0x7f.0.0.1/cb', 'canonical form'],
    ['http://%6cocalhost/cb', 'canonical form'],
    ['https://bücher.example/cb', 'A-label (punycode) form: xn--bcher-kva.example'],
    // The callback is built by the parser: what it rewrites would send the code to another path or port.
    ['https://app.example/oauth/callback/../../uploads/x', 'canonical form (no "." or ".." segments'],
    ['https://app.example/cb/./x', 'canonical form'],
    ['https://app.example:443/cb', 'no default port'],
    ['http://localhost:80/cb', 'no default port'],
    ['https://app.example/caf\u00e9', 'https://app.example/caf%C3%A9'],
    ['https://app.example/cb?q="x"', 'percent-encoded'],
    ['com.example.app:/oauth2redirect', 'must use https'],
    ['myapp://callback', 'must use https'],
    ['javascript:alert(1)', 'must use https'],
    ['data:text/html,hi', 'must use https'],
    ['ftp://example.com/cb', 'must use https'],
    ['https:///cb', 'must name a host'],
    ['https://exa mple.com/cb', 'must not contain spaces or control characters'],
    ['https://example.com/cb\n', 'must not contain spaces or control characters'],
    ['', 'must not be empty'],
    [`https://example.com/${'a'.repeat(2000)}`, 'must be at most 2000 characters long'],
  ])('refuses %s: %s', (uri, rule) => {
    expect(redirectUriProblem(uri)).toContain(rule);
    const e = violation(() => checkRedirectUris(['https://ok.example.com/cb', uri]));
    expect(e.message).toContain(rule);
    expect(e.message).toContain(`"${uri}"`);
    expect(e.fields[0]!.path).toBe('redirectUris[1]');
  });

  test('a set needs at least one URI, at most twenty, and duplicates collapse', () => {
    expect(violation(() => checkRedirectUris([])).message).toBe('at least one redirect URI is required');
    const many = Array.from({ length: 21 }, (_, i) => `https://example.com/cb${i}`);
    expect(violation(() => checkRedirectUris(many)).message).toContain('at most 20');
    expect(checkRedirectUris(['https://a.example/cb', 'https://a.example/cb'])).toEqual([
      'https://a.example/cb',
    ]);
  });

  test('URIs are kept exactly as given', () => {
    expect(checkRedirectUris(['https://example.com/cb?x=1&y=2'])).toEqual(['https://example.com/cb?x=1&y=2']);
    expect(checkRedirectUris(['https://example.com'])).toEqual(['https://example.com']);
  });
});

describe('scope rules', () => {
  test('the interface scopes are accepted and returned in its order', () => {
    expect(checkScopes(['email', 'openid', 'email'], 'sandbox')).toEqual(['openid', 'email']);
    expect(
      checkScopes(
        SCOPES.filter((s) => s !== 'document_number_full'),
        'sandbox',
      ).length,
    ).toBe(25);
  });

  test('an unknown scope is refused by name', () => {
    const e = violation(() => checkScopes(['openid', 'offline_access'], 'sandbox'));
    expect(e.message).toBe(
      'unknown scope "offline_access": scopes must be among the 26 listed at /v1/capabilities/scopes',
    );
    expect(e.fields[0]!.path).toBe('scopes');
  });

  test('sandbox never gets document_number_full', () => {
    expect(violation(() => checkScopes(['openid', 'document_number_full'], 'sandbox')).message).toBe(
      'document_number_full is never granted in sandbox (production only, after review)',
    );
  });

  test('production gets document_number_full only with the approval flag', () => {
    expect(violation(() => checkScopes(['document_number_full'], 'production')).message).toContain(
      'needs an approved production review',
    );
    expect(checkScopes(['document_number_full'], 'production', { fullNumberApproved: true })).toEqual([
      'document_number_full',
    ]);
  });

  test('an empty set is refused', () => {
    expect(violation(() => checkScopes([], 'sandbox')).message).toBe('at least one scope is required');
    expect(parseScopeList(' openid  profile,email ')).toEqual(['openid', 'profile', 'email']);
  });
});

describe('document policy rules', () => {
  test('types and countries are checked and normalised', () => {
    expect(checkDocumentTypes('id_card passport')).toEqual(['passport', 'id_card']);
    expect(checkDocumentTypes('all').length).toBe(4);
    expect(checkDocumentTypes('none')).toEqual([]);
    expect(checkDocumentCountries('fr,DE de')).toEqual(['DE', 'FR']);
    expect(checkDocumentCountries('all').length).toBeGreaterThan(240);
    expect(violation(() => checkDocumentTypes('passport visa')).message).toContain(
      'unknown document type "visa"',
    );
    expect(violation(() => checkDocumentCountries('DE XX')).message).toBe(
      '"XX" is not an ISO 3166-1 alpha-2 country code',
    );
    expect(violation(() => checkDocumentCountries('DEU')).message).toContain('"DEU"');
  });
});
