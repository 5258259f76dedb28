import { afterEach, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import pkg from '../../package.json' with { type: 'json' };
import { cliProcess } from '../helpers/cli.ts';
import { tempDir } from '../helpers/context.ts';
import { freePort } from '../helpers/port.ts';

const root = join(import.meta.dir, '../..');

/** The CLI as an operator runs it: a child process in `cwd`. */
const verity = (cwd: string, ...args: string[]) => cliProcess(args, { cwd });

const noStackTrace = (text: string) => expect(text).not.toMatch(/^\s+at /m);

let cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});
function workDir(): string {
  const { dir, cleanup } = tempDir('verity-cli');
  cleanups.push(cleanup);
  return dir;
}

describe('errors an operator can act on', () => {
  test('serve on a busy port names the key and the variable, and creates nothing on disk', async () => {
    const dir = workDir();
    const port = await freePort();
    const busy: Server = createServer();
    await new Promise<void>((r) => busy.listen(port, '127.0.0.1', () => r()));
    cleanups.push(() => busy.close());
    writeFileSync(join(dir, 'verity.toml'), `[server]\nlisten = "127.0.0.1:${port}"\n`);
    const r = await verity(dir, 'serve');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `[server] listen 127.0.0.1:${port} is in use: change it or set VERITY_SERVER_LISTEN`,
    );
    noStackTrace(r.stderr);
    expect(existsSync(join(dir, 'data'))).toBe(false);
  }, 30_000);

  test('a database path that is a directory is named as [database] path', async () => {
    const dir = workDir();
    mkdirSync(join(dir, 'db'));
    const port = await freePort();
    writeFileSync(
      join(dir, 'verity.toml'),
      `[database]\npath = "./db"\n[server]\nlisten = "127.0.0.1:${port}"\n`,
    );
    const r = await verity(dir, 'serve', '--json');
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).error.message).toStartWith('[database] path: ./db is a directory');
    const migrate = await verity(dir, 'migrate');
    expect(migrate.stderr).toContain('[database] path: ./db is a directory');
    noStackTrace(migrate.stderr);
  }, 30_000);

  test('an out-of-range port is a config error, not a crash in serve', async () => {
    const dir = workDir();
    writeFileSync(join(dir, 'verity.toml'), '[server]\nlisten = "127.0.0.1:99999"\n');
    for (const args of [['config', 'check'], ['serve']]) {
      const r = await verity(dir, ...args);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('server.listen: port 99999 is out of range (1-65535)');
      noStackTrace(r.stderr);
    }
    expect(existsSync(join(dir, 'data'))).toBe(false);
  }, 30_000);

  test('a TOML syntax error gives FILE:LINE:COL and the line', async () => {
    const dir = workDir();
    writeFileSync(join(dir, 'bad.toml'), '[server]\nlisten = "127.0.0.1:8080"\nbase_url = http://x\n');
    const r = await verity(dir, 'config', 'check', '--config', 'bad.toml');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('bad.toml:3:12: TOML syntax:');
    expect(r.stderr).toContain('base_url = http://x');
  }, 30_000);

  test('config check names the file it read, or says only defaults apply, and warns without failing', async () => {
    const dir = workDir();
    const defaults = await verity(dir, 'config', 'check', '--json');
    expect(defaults.code).toBe(0);
    const d = JSON.parse(defaults.stdout);
    expect(d.file).toBeNull();
    expect(d.warnings.join('\n')).toContain('is plain http');
    expect((await verity(dir, 'config', 'check')).stdout).toStartWith(
      'no ./verity.toml: using the defaults only\n',
    );

    writeFileSync(
      join(dir, 'prod.toml'),
      `[server]\nbase_url = "https://id.example.com"\nlisten = "0.0.0.0:8080"\ntrust_proxy = "x-forwarded-for"\ntrusted_proxies = ["10.0.0.5"]\n` +
        '[identity]\nsandbox = false\n[demo]\nenabled = false\n[face]\nprovider = "http"\nhttp_url = "https://face.internal"\n' +
        '[email]\ntransport = "smtp"\nhost = "smtp.example.com"\n',
    );
    const prod = await verity(dir, 'config', 'check', '--config', 'prod.toml', '--json');
    expect(prod.code).toBe(0);
    expect(JSON.parse(prod.stdout)).toMatchObject({ valid: true, file: 'prod.toml', warnings: [] });
    // The load balancer on another machine, not listed: its header would not be believed.
    writeFileSync(
      join(dir, 'unlisted.toml'),
      readFileSync(join(dir, 'prod.toml'), 'utf8').replace(/trusted_proxies.*\n/, ''),
    );
    const unlisted = await verity(dir, 'config', 'check', '--config', 'unlisted.toml');
    expect(unlisted.stdout).toContain(
      'warning: [server] listen 0.0.0.0:8080 is reachable from other machines and trusted_proxies is empty',
    );

    // Every secret-bearing key is shown as set, never its value.
    const secrets: Record<string, [key: string, value: string, more?: string]> = {
      server: ['metrics_token', 'metrics-token-of-at-least-32-bytes!'],
      oidc: ['pairwise_secret', 'pairwise-secret-of-at-least-32-bytes'],
      webhooks: ['secret_key', 'webhooks-key-of-at-least-32-bytes!!'],
      face: ['http_token', 'face-service-token-value'],
      email: ['password', 'smtp-password-value', 'user = "mailer"'],
    };
    writeFileSync(
      join(dir, 'secrets.toml'),
      Object.entries(secrets)
        .map(([section, [key, value, more = '']]) => `[${section}]\n${key} = "${value}"\n${more}\n`)
        .join(''),
    );
    const shown = await verity(dir, 'config', 'check', '--config', 'secrets.toml', '--json');
    expect(shown.code).toBe(0);
    const config = JSON.parse(shown.stdout).config;
    for (const [section, [key, value]] of Object.entries(secrets)) {
      expect({ key, shown: config[section][key] }).toEqual({ key, shown: '(set)' });
      expect(shown.stdout).not.toContain(value);
    }

    // Issue 15: sandbox personas on a production-looking issuer; an open listener with no proxy header.
    writeFileSync(
      join(dir, 'risky.toml'),
      '[server]\nbase_url = "https://id.example.com"\nlisten = "0.0.0.0:8080"\n',
    );
    const risky = await verity(dir, 'config', 'check', '--config', 'risky.toml');
    expect(risky.code).toBe(0);
    expect(risky.stdout).toStartWith('read risky.toml\nconfiguration is valid\n');
    expect(risky.stdout).toContain(
      'warning: [identity] sandbox = true on an https issuer (https://id.example.com)',
    );
    expect(risky.stdout).toContain('warning: [demo] enabled = true');
    expect(risky.stdout).toContain('warning: [face] provider = "none"');
    expect(risky.stdout).toContain('warning: [server] listen 0.0.0.0:8080 is reachable from other machines');
    expect(risky.stdout).not.toContain('plain http');
    // Reset links in the log are a developer account for whoever reads it.
    expect(risky.stdout).toContain('warning: [email] transport = "log" on an https issuer');

    writeFileSync(
      join(dir, 'mail.toml'),
      '[server]\nbase_url = "https://id.example.com"\n[email]\ntransport = "smtp"\nhost = "mail.example.com"\nstarttls = false\nuser = "verity"\npassword = "mail-secret"\n',
    );
    const mail = await verity(dir, 'config', 'check', '--config', 'mail.toml');
    expect(mail.stdout).toContain('warning: [email] starttls = false with a password');
    expect(mail.stdout).not.toContain('transport = "log"');

    // Webhooks to this machine's ports, and a database across the network without TLS.
    const remote = (url: string, extra = '') =>
      `[server]\nbase_url = "https://id.example.com"\n[database]\nurl = "${url}"\n${extra}`;
    writeFileSync(
      join(dir, 'remote.toml'),
      remote(
        'postgres://verity:pw@db.internal:5432/verity',
        '[webhooks]\nallow_localhost_in_sandbox = true\n',
      ),
    );
    const open = await verity(dir, 'config', 'check', '--config', 'remote.toml');
    expect(open.stdout).toContain('warning: [webhooks] allow_localhost_in_sandbox = true on an https issuer');
    expect(open.stdout).toContain('warning: [database] url names db.internal without sslmode');
    for (const url of [
      'postgres://verity:pw@db.internal:5432/verity?sslmode=verify-full',
      'postgres://verity:pw@127.0.0.1:5432/verity',
      'postgres://verity@/verity?host=/run/postgresql',
    ]) {
      writeFileSync(join(dir, 'safe.toml'), remote(url));
      expect((await verity(dir, 'config', 'check', '--config', 'safe.toml')).stdout).not.toContain(
        '[database]',
      );
    }

    // The usual production set-up, a proxy on the same machine, with its header not named.
    writeFileSync(join(dir, 'proxied.toml'), '[server]\nbase_url = "https://id.example.com"\n');
    const proxied = await verity(dir, 'config', 'check', '--config', 'proxied.toml');
    expect(proxied.stdout).toContain(
      'warning: [server] base_url is https and listen 127.0.0.1:8080 is loopback, so a proxy on this machine forwards every request, and trust_proxy is empty',
    );
    expect(proxied.stdout).toContain('/metrics answers anyone (no metrics_token is set)');
  }, 30_000);

  test('the version, from package.json, and help when no command is given', async () => {
    const dir = workDir();
    expect((await verity(dir, '--version')).stdout).toBe(`verity ${pkg.version}\n`);
    expect(JSON.parse((await verity(dir, 'version', '--json')).stdout)).toEqual({ version: pkg.version });
    for (const args of [[], ['--config', 'x.toml']]) {
      const r = await verity(dir, ...args);
      expect(r.stdout).toStartWith('Usage: verity <command> [options]');
      expect(r.stderr).not.toContain('unknown command');
    }
  }, 30_000);

  test('the startup log line carries the version; an https instance logs its risky settings', async () => {
    const dir = workDir();
    const port = await freePort();
    // A load balancer's header named, on a listener other machines reach, but no trusted proxy listed.
    writeFileSync(
      join(dir, 'verity.toml'),
      `[server]\nlisten = "0.0.0.0:${port}"\nbase_url = "https://id.example.com"\ntrust_proxy = "x-forwarded-for"\n`,
    );
    const child = Bun.spawn([process.execPath, join(root, 'src/main.ts'), 'serve'], {
      cwd: dir,
      stdout: 'pipe',
    });
    cleanups.push(() => child.kill());
    const reader = child.stdout.getReader();
    let text = '';
    while (!/trusted_proxies is empty[^\n]*\n/.test(text)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    const lines = text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(lines.find((l) => l.msg === 'listening')).toMatchObject({ level: 'info', version: pkg.version });
    const risky = lines.filter((l) => l.msg === 'risky setting').map((l) => l.warning as string);
    expect(risky.some((w) => w.includes('trusted_proxies is empty'))).toBe(true);
  }, 30_000);
});
