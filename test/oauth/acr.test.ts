import { describe, expect, test } from 'bun:test';
import { OAuthError } from '../../src/errors.ts';
import { parseAcrValues, requiredAcr } from '../../src/oauth/acr.ts';

describe('the assurance a request requires', () => {
  test('the lowest acceptable level listed, whatever the preference order', () => {
    expect(requiredAcr(['high', 'substantial'], null)).toBe('substantial');
    expect(requiredAcr(['low', 'high'], null)).toBe('low');
    expect(requiredAcr(undefined, null)).toBeUndefined();
  });

  test("the environment's minimum applies when nothing is asked, and cannot be undercut", () => {
    expect(requiredAcr(undefined, 'substantial')).toBe('substantial');
    expect(requiredAcr(['none'], 'substantial')).toBe('substantial');
    expect(requiredAcr(['low', 'high'], 'substantial')).toBe('substantial');
    expect(requiredAcr(['high'], 'low')).toBe('high');
  });

  test('unknown acr values are ignored; a list of only unknown ones is invalid_request', () => {
    expect(parseAcrValues('urn:example:gold  high')).toEqual(['high']);
    // Values are case-sensitive strings (OIDC Core §2): HIGH is not high.
    const refused = (() => {
      try {
        parseAcrValues('urn:example:gold HIGH');
      } catch (e) {
        return e;
      }
    })();
    expect(refused).toBeInstanceOf(OAuthError);
    expect((refused as OAuthError).error).toBe('invalid_request');
  });
});
