import { describe, expect, test } from 'bun:test';
import { ConfigError, parseConfig } from '../../src/config/load.ts';

function problems(toml: string, env: Record<string, string> = {}, source?: string): string[] {
  try {
    parseConfig(toml, env, source);
  } catch (e) {
    if (e instanceof ConfigError) return e.problems;
    throw e;
  }
  return [];
}

describe('public URLs', () => {
  test('each of the four must be absolute http(s) with no query or fragment', () => {
    for (const key of ['base_url', 'identity_url', 'developer_url']) {
      expect(problems(`[server]\n${key} = "localhost:8080"`)).toEqual([
        `server.${key}: must be http:// or https://, not localhost://`,
      ]);
      expect(problems(`[server]\n${key} = "ftp://x"`)).toEqual([
        `server.${key}: must be http:// or https://, not ftp://`,
      ]);
      expect(problems(`[server]\n${key} = "https://id.example.com/?a=1"`)).toEqual([
        `server.${key}: must not have a query (?...)`,
      ]);
      expect(problems(`[server]\n${key} = "https://id.example.com/#top"`)).toEqual([
        `server.${key}: must not have a fragment (#...)`,
      ]);
      // A bare "?" or "#" is dropped by the URL parser but still refused: the issuer must be exact.
      expect(problems(`[server]\n${key} = "https://id.example.com/?"`)).toHaveLength(1);
    }
    expect(problems('[demo]\nurl = "ftp://demo"')).toEqual([
      'demo.url: must be http:// or https://, not ftp://',
    ]);
  });

  test('plain http is refused off loopback unless [server] allow_http = true', () => {
    const refused = problems(
      '[server]\nbase_url = "http://id.example.com"\nidentity_url = "http://10.0.0.5/identity"\n[demo]\nurl = "http://demo.example.com"',
    );
    expect(refused.map((p) => p.split(':')[0])).toEqual([
      'server.base_url',
      'server.identity_url',
      'demo.url',
    ]);
    expect(refused[0]).toContain('allow_http = true');
    for (const host of ['localhost', '127.0.0.1', '127.8.9.10', '[::1]', 'app.localhost'])
      expect(problems(`[server]\nbase_url = "http://${host}:8080"`)).toEqual([]);
    expect(problems('[server]\nbase_url = "https://id.example.com"')).toEqual([]);
    const allowed = parseConfig('[server]\nbase_url = "http://id.example.com/"\nallow_http = true');
    expect(allowed.server.base_url).toBe('http://id.example.com');
    // Reported together with problems elsewhere in the file.
    expect(problems('[server]\nbase_url = "http://id.example.com"\n[oauth]\ncode_ttl = "soon"')).toHaveLength(
      2,
    );
  });

  test("a surface may not lie under a path of the API's: it answers every path under its own", () => {
    expect(problems('[server]\nidentity_url = "http://localhost:8080/v1/identity"')).toEqual([
      'server.identity_url: must not lie under /v1, which the API serves',
    ]);
    expect(problems('[server]\ndeveloper_url = "http://dev.localhost:8080/.well-known"')).toEqual([
      'server.developer_url: must not lie under /.well-known, which the API serves',
    ]);
    expect(problems('[server]\ndeveloper_url = "http://localhost:8080/v1x/dev"')).toEqual([]);
  });
});

describe('listen addresses', () => {
  test('ports and hosts are checked, for the server and the demo', () => {
    expect(problems('[server]\nlisten = "127.0.0.1:99999"')).toEqual([
      'server.listen: port 99999 is out of range (1-65535)',
    ]);
    expect(problems('[server]\nlisten = "127.0.0.1:0"')).toEqual([
      'server.listen: port 0 is out of range (1-65535)',
    ]);
    expect(problems('[demo]\nlisten = "300.1.1.1:8081"')).toEqual([
      'demo.listen: "300.1.1.1" is not an IPv4 address or host name',
    ]);
    expect(problems('[server]\nlisten = "[::g]:8080"')).toEqual([
      'server.listen: "::g" is not an IPv6 address',
    ]);
    expect(problems('[server]\nlisten = "bad host:8080"')).toHaveLength(1);
    expect(problems('[server]\nlisten = "8080"')).toHaveLength(1);
    for (const ok of ['0.0.0.0:1', '[::]:65535', '[::1]:8080', 'localhost:8080', 'verity.internal:443'])
      expect(problems(`[server]\nlisten = "${ok}"`)).toEqual([]);
  });
});

describe('problems an operator can act on', () => {
  test('a TOML syntax error names FILE:LINE:COL and shows the line', () => {
    const [p] = problems(
      '[server]\nlisten = "127.0.0.1:8080"\nbase_url = http://x\n',
      {},
      '/etc/verity.toml',
    );
    expect(p).toStartWith('/etc/verity.toml:3:12: TOML syntax:');
    expect(p).toContain('\n      base_url = http://x\n');
    expect(p!.split('\n')[2]).toBe(`      ${' '.repeat(11)}^`);
  });

  test('a misspelt key gets a suggestion; a key far from any gets none', () => {
    expect(problems('[server]\nlistn = "127.0.0.1:8080"\nbase_uri = "https://x"\ncolour = 1')).toEqual([
      'server.listn: unknown key (did you mean "listen"?)',
      'server.base_uri: unknown key (did you mean "base_url"?)',
      'server.colour: unknown key',
    ]);
    expect(problems('[rate_limits.oauth.plans.gold]\nrequest = 5')).toEqual([
      'rate_limits.oauth.plans.gold.request: unknown key (did you mean "requests"?)',
    ]);
    expect(problems('[identiy]\nsandbox = false')).toEqual([
      'identiy: unknown key (did you mean "identity"?)',
    ]);
  });

  test('a key set by a VERITY_* variable is reported with the variable', () => {
    expect(problems('', { VERITY_SERVER_LISTEN: '127.0.0.1:70000', VERITY_SERVER_LISTN: 'x' })).toEqual([
      'server.listen (from VERITY_SERVER_LISTEN): port 70000 is out of range (1-65535)',
      'server.listn (from VERITY_SERVER_LISTN): unknown key (did you mean VERITY_SERVER_LISTEN?)',
    ]);
  });

  test('trusted_proxies holds addresses and CIDR ranges, from the file or the environment as a TOML array', () => {
    expect(parseConfig('').server.trusted_proxies).toEqual([]);
    expect(
      parseConfig('[server]\ntrusted_proxies = ["10.0.0.5", "2001:db8::/64"]').server.trusted_proxies,
    ).toEqual(['10.0.0.5', '2001:db8::/64']);
    const env = { VERITY_SERVER_TRUSTED_PROXIES: '["10.0.0.0/24"]' };
    expect(parseConfig('', env).server.trusted_proxies).toEqual(['10.0.0.0/24']);
    expect(problems('[server]\ntrusted_proxies = ["10.0.0.0/33", "lb.internal"]')).toEqual([
      'server.trusted_proxies.0: must be an IP address or a CIDR range, e.g. "10.0.0.0/24"',
      'server.trusted_proxies.1: must be an IP address or a CIDR range, e.g. "10.0.0.0/24"',
    ]);
  });

  test('signing_threads is "auto" or a whole number from 0 to 256, from the file or the environment', () => {
    expect(parseConfig('').server.signing_threads).toBe('auto');
    expect(parseConfig('[server]\nsigning_threads = 0').server.signing_threads).toBe(0);
    expect(parseConfig('', { VERITY_SERVER_SIGNING_THREADS: '3' }).server.signing_threads).toBe(3);
    for (const bad of ['-1', '257', '1.5', '"many"', 'true'])
      expect(problems(`[server]\nsigning_threads = ${bad}`)).toEqual([
        'server.signing_threads: must be "auto" or a whole number of threads from 0 to 256',
      ]);
  });

  test('a duration given as a number says what durations look like', () => {
    expect(problems('[oauth]\ncode_ttl = 5\n[rate_limits.oauth.plans.gold]\nwindow = 60')).toEqual([
      'oauth.code_ttl: durations are quoted strings with a unit, like "5m": 5 has no unit',
      'rate_limits.oauth.plans.gold.window: durations are quoted strings with a unit, like "5m": 60 has no unit',
    ]);
  });

  test('face.provider = "local" is refused until an on-box provider exists', () => {
    expect(problems('[face]\nprovider = "local"')).toEqual([
      'face.provider: "local" is not available yet (no on-box face provider exists): use "http" or "none"',
    ]);
  });

  test('a webhooks secret_key shorter than 32 bytes is refused: it seals the stored signing secrets', () => {
    expect(problems('[webhooks]\nsecret_key = "hunter2"')[0]).toStartWith(
      'webhooks.secret_key: must be at least 32 bytes',
    );
    expect(problems(`[webhooks]\nsecret_key = "${'x'.repeat(32)}"`)).toEqual([]);
    expect(problems('[webhooks]\nsecret_key = ""')).toEqual([]);
  });

  test('a pairwise_secret shorter than 32 bytes is refused, from the file or the environment', () => {
    const rule = 'must be at least 32 bytes';
    expect(problems('[oidc]\npairwise_secret = "short"')[0]).toStartWith(`oidc.pairwise_secret: ${rule}`);
    expect(problems('', { VERITY_OIDC_PAIRWISE_SECRET: 'x'.repeat(31) })[0]).toStartWith(
      `oidc.pairwise_secret (from VERITY_OIDC_PAIRWISE_SECRET): ${rule}`,
    );
    expect(problems(`[oidc]\npairwise_secret = "${'x'.repeat(32)}"`)).toEqual([]);
    expect(problems('[oidc]\npairwise_secret = ""')).toEqual([]);
  });
});

describe('[assurance] trust_framework', () => {
  test('empty by default; an identifier or a URL is accepted', () => {
    expect(parseConfig('').assurance.trust_framework).toBe('');
    expect(problems('[assurance]\ntrust_framework = "de_aml"')).toEqual([]);
    expect(problems('[assurance]\ntrust_framework = "https://example.com/frameworks/kyc"')).toEqual([]);
  });
  test('the sandbox name and anything that is not an identifier are refused, saying why', () => {
    expect(problems('[assurance]\ntrust_framework = "verity_sandbox"')).toEqual([
      'assurance.trust_framework: "verity_sandbox" marks sandbox data and cannot name a production framework',
    ]);
    expect(problems('[assurance]\ntrust_framework = "our framework"')[0]).toStartWith(
      'assurance.trust_framework: must be an identifier',
    );
  });
});
