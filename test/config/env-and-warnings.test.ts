import { expect, test } from 'bun:test';
import { parseConfig } from '../../src/config/load.ts';
import { configWarnings } from '../../src/config/warnings.ts';

/**
 * `[face] provider = "http"` sends every face frame (biometric data) and the bearer `http_token` to
 * `http_url`: over plain http to another machine both cross the network in clear, and `verity config
 * check` (and an https start) say so, as they do for the database's URL.
 */
test('config check warns about a face provider reached over plain http on another machine', () => {
  const config = parseConfig(
    [
      '[server]',
      'base_url = "https://id.example.com"',
      'trust_proxy = "x-forwarded-for"',
      '[face]',
      'provider = "http"',
      'http_url = "http://face.internal.example/v1/verify"',
      'http_token = "a-bearer-token-of-the-face-provider-0123456789"',
    ].join('\n'),
  );
  const warnings = configWarnings(config);
  expect(warnings.filter((w) => w.includes('[face]') && w.includes('http_url'))).toHaveLength(1);
});

/**
 * Secrets need not sit in the file: a key that holds text keeps its `VERITY_*` value as the string it
 * is, even all digits (an environment variable cannot be quoted).
 */
test('a digits-only secret given by its VERITY_* variable is kept as the string it is', () => {
  const env = {
    VERITY_EMAIL_TRANSPORT: 'smtp',
    VERITY_EMAIL_HOST: 'mail.example.com',
    VERITY_EMAIL_USER: 'verity',
    VERITY_EMAIL_PASSWORD: '20260601',
  };
  let password: string | undefined;
  let problem: string | undefined;
  try {
    password = parseConfig('', env).email.password;
  } catch (e) {
    problem = (e as Error).message;
  }
  expect({ password, problem }).toEqual({ password: '20260601', problem: undefined });
});
