import { describe, expect, test } from 'bun:test';
import { ConfigError, parseConfig } from '../../src/config/load.ts';
import { cli } from '../helpers/cli.ts';
import { tempDir } from '../helpers/context.ts';

describe('configuration', () => {
  test('an empty file gives the documented defaults', () => {
    const c = parseConfig('');
    expect(c.server.listen).toBe('127.0.0.1:8080');
    expect(c.server.identity_url).toBe('http://localhost:8080/identity');
    expect(c.server.developer_url).toBe('http://localhost:8080/developer');
    expect(c.oauth.code_ttl).toBe(300_000);
    expect(c.oauth.token_ttl).toBe(900_000);
    expect(c.rate_limits.oauth).toMatchObject({ requests: 30, window: 600_000 });
    expect(c.keys.rotate_every).toBe(30 * 86_400_000);
    expect(c.webhooks.timeout).toBe(5000);
    expect(c.face.provider).toBe('none');
  });

  test('every problem is reported at once, each with its key path', () => {
    const toml = `
[server]
listen = "nowhere"
base_url = "not a url"
[keys]
rotate_every = "3 weeks"
colour = "blue"
[rate_limits.oauth]
requests = 0
[face]
provider = "magic"
`;
    let err: ConfigError | undefined;
    try {
      parseConfig(toml);
    } catch (e) {
      err = e as ConfigError;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const text = err!.problems.join('\n');
    expect(text).toContain('server.listen: "nowhere" is not host:port');
    expect(text).toContain('server.base_url: "not a url" is not an absolute URL');
    expect(text).toContain('keys.rotate_every: "3 weeks" is not a duration');
    expect(text).toContain('keys.colour: unknown key');
    expect(text).toContain('rate_limits.oauth.requests');
    expect(text).toContain('face.provider');
    expect(err!.problems.length).toBe(6);
  });

  test('override windows and the face provider URL are validated too', () => {
    const toml = `
[rate_limits.oauth.environments.sandbox]
window = "abc"
[rate_limits.userinfo.plans.gold]
window = "1 hour"
[face]
provider = "http"
`;
    let problems: string[] = [];
    try {
      parseConfig(toml);
    } catch (e) {
      problems = (e as ConfigError).problems;
    }
    expect(problems).toHaveLength(3);
    expect(problems.join('\n')).toContain(
      'rate_limits.oauth.environments.sandbox.window: "abc" is not a duration like "90s", "5m", "12h" or "30d"',
    );
    expect(problems.join('\n')).toContain(
      'rate_limits.userinfo.plans.gold.window: "1 hour" is not a duration',
    );
    expect(problems.join('\n')).toContain('face.http_url: must be an absolute URL when provider = "http"');
    expect(
      parseConfig('[face]\nprovider = "http"\nhttp_url = "https://face.internal/verify"').face.provider,
    ).toBe('http');
  });

  test('publish_ahead shorter than the JWKS max-age is refused, whichever way it is set', async () => {
    // A next key promoted within 300 s of publication could sign tokens that a relying party's cached
    // JWKS (max-age=300) does not yet hold.
    const rule = 'keys.publish_ahead: must be at least 300 seconds (the JWKS max-age';
    for (const value of ['0s', '299s', '4m', '299999ms']) {
      let problems: string[] = [];
      try {
        parseConfig(`[keys]\npublish_ahead = "${value}"`);
      } catch (e) {
        problems = (e as ConfigError).problems;
      }
      expect(problems).toHaveLength(1);
      expect(problems[0]).toStartWith(rule);
    }
    expect(() => parseConfig('', { VERITY_KEYS_PUBLISH_AHEAD: '1m' })).toThrow(
      rule.replace(':', ' (from VERITY_KEYS_PUBLISH_AHEAD):'),
    );
    // Reported together with the section's other problems.
    let both: string[] = [];
    try {
      parseConfig('[keys]\npublish_ahead = "10s"\nrotate_every = "soon"');
    } catch (e) {
      both = (e as ConfigError).problems;
    }
    expect(both).toHaveLength(2);
    expect(both.join('\n')).toContain(rule);
    expect(parseConfig('[keys]\npublish_ahead = "300s"').keys.publish_ahead).toBe(300_000);
    expect(parseConfig('[keys]\npublish_ahead = "5m"').keys.publish_ahead).toBe(300_000);
    expect(parseConfig('').keys.publish_ahead).toBe(3_600_000);

    const { dir, cleanup } = tempDir();
    try {
      await Bun.write(`${dir}/short.toml`, '[keys]\npublish_ahead = "1m"\n');
      const r = await cli('config', 'check', '--config', `${dir}/short.toml`, '--json');
      expect(r.code).toBe(1);
      expect(r.json.error.code).toBe('CONFIG_INVALID');
      expect(r.json.error.problems).toEqual([expect.stringContaining(rule)]);
    } finally {
      cleanup();
    }
  });

  test('a TOML syntax error is reported, not thrown raw', () => {
    expect(() => parseConfig('[server\nlisten=')).toThrow(/TOML syntax/);
  });

  test('VERITY_* environment variables override file values', () => {
    const c = parseConfig(`[oidc]\npairwise_secret = "${'f'.repeat(32)}"`, {
      VERITY_OIDC_PAIRWISE_SECRET: 'e'.repeat(32),
      VERITY_WEBHOOKS_ALLOW_LOCALHOST_IN_SANDBOX: 'true',
      VERITY_DATABASE_PATH: '/tmp/x.db',
    });
    expect(c.oidc.pairwise_secret).toBe('e'.repeat(32));
    expect(c.webhooks.allow_localhost_in_sandbox).toBe(true);
    expect(c.database.path).toBe('/tmp/x.db');
  });

  test('`verity config check` runs the same validation and exits 1 with every problem', async () => {
    const { dir, cleanup } = tempDir();
    try {
      await Bun.write(`${dir}/bad.toml`, '[keys]\nrotate_every = "x"\n[oauth]\ncode_ttl = 5\n');
      const bad = await cli('config', 'check', '--config', `${dir}/bad.toml`, '--json');
      expect(bad.code).toBe(1);
      expect(bad.json.error.code).toBe('CONFIG_INVALID');
      expect(bad.json.error.problems).toHaveLength(2);
      await Bun.write(
        `${dir}/good.toml`,
        '[oidc]\npairwise_secret = "s3cret-s3cret-s3cret-s3cret-s3cret"\n[database]\nurl = "postgres://verity:pg-s3cret@db.internal/verity"\n' +
          '[email]\ntransport = "smtp"\nhost = "smtp.example"\nuser = "verity"\npassword = "smtp-s3cret"\n',
      );
      const good = await cli('config', 'check', '--config', `${dir}/good.toml`, '--json');
      expect(good.code).toBe(0);
      expect(good.json.valid).toBe(true);
      expect(good.stdout).not.toContain('s3cret');
      expect(good.json.config.database.url).toBe('postgres://verity:***@db.internal/verity');
      const missing = await cli('config', 'check', '--config', `${dir}/none.toml`);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain('not found');
    } finally {
      cleanup();
    }
  });

  test('an unknown command or flag is a usage error (exit 2)', async () => {
    expect((await cli('frobnicate')).code).toBe(2);
    expect((await cli('migrate', '--bogus')).code).toBe(2);
    // A flag's value is never read as a command word, and --json gets a JSON error.
    const json = await cli('--config', '/nonexistent/verity.toml', 'frobnicate', '--json');
    expect(json.code).toBe(2);
    expect(json.json.error).toEqual({ code: 'USAGE', message: 'unknown command "frobnicate"' });
  });
});
