import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { smoke, startWay } from '../../scripts/smoke.ts';
import { executableResidentKib } from '../../src/platform/startup-pages.ts';
import { P, submitSignUp } from '../developer/portal-helpers.ts';
import { linkIn, startMailbox } from '../email/mailbox.ts';
import { tempDir } from '../helpers/context.ts';
import { postgresAvailable } from '../helpers/postgres.ts';
import { serveOnFreePort } from '../helpers/serve-process.ts';
import { waitFor } from '../helpers/wait.ts';
import { httpBrowser } from '../identity/flow-helpers.ts';

const root = join(import.meta.dir, '../..');
// Inside the checkout, so the Node bundle resolves better-sqlite3 from node_modules as dist/ does.
const dist = join(root, '.tmp', `build-${crypto.randomUUID()}`);

beforeAll(() => {
  mkdirSync(dist, { recursive: true });
  const run = Bun.spawnSync([process.execPath, 'scripts/build.ts', '--out', dist], {
    cwd: root,
    stdout: 'pipe',
    stderr: 'pipe',
  });
  if (run.exitCode !== 0) throw new Error(`build failed:\n${run.stdout}\n${run.stderr}`);
}, 120_000);

afterAll(() => rmSync(dist, { recursive: true, force: true }));

describe('release artifacts', () => {
  test('the compiled dist/verity, started with a config file, serves /healthz, /readyz and the JWKS', async () => {
    expect(statSync(join(dist, 'verity')).mode & 0o111).not.toBe(0);
    const result = await smoke('binary', { dist });
    expect(result.kid.length).toBeGreaterThan(0);
    expect(result.exitCode).toBe(0);
  }, 60_000);

  // Its PostgreSQL connection thread is built beside it, and drizzle's synchronous session inside it.
  test.skipIf(!postgresAvailable())(
    'dist/verity serves the same way with `[database] url` on PostgreSQL',
    async () => {
      const result = await smoke('binary', { dist, engine: 'postgres' });
      expect(result.exitCode).toBe(0);
    },
    60_000,
  );

  // The portal's pages and the mail library are chunks of their own, loaded with the first page and
  // the first message (docs/architecture.md#memory).
  test('dist/verity sends mail over SMTP: a portal sign-up gets its verification link', async () => {
    const box = await startMailbox();
    const server = await startWay('binary', {
      dist,
      extraConfig: `[developer]\nsignup = "open"\n[email]\ntransport = "smtp"\nhost = "127.0.0.1"\nport = ${box.port}\nstarttls = false`,
    });
    try {
      const arrived = box.next('new@example.com');
      const res = await submitSignUp(httpBrowser(server.baseUrl), 'new@example.com');
      expect(res.status).toBe(303);
      expect(linkIn(await arrived)).toStartWith(`${server.baseUrl}${P}/verify-email/`);
    } finally {
      await server.dispose();
      await box.close();
    }
  }, 60_000);

  test('the Node 20 bundle serves the same way under node', async () => {
    const result = await smoke('node', { dist });
    expect(result.exitCode).toBe(0);
  }, 60_000);

  test('the source runs under Bun through `verity serve --config`', async () => {
    const result = await smoke('bun');
    expect(result.exitCode).toBe(0);
  }, 60_000);

  test('the binary runs the CLI from any directory, with migrations embedded', async () => {
    const { dir, cleanup } = tempDir('verity-bin');
    try {
      writeFileSync(
        join(dir, 'verity.toml'),
        `[database]\npath = "${join(dir, 'v.db')}"\n[keys]\ndir = "${join(dir, 'keys')}"\n`,
      );
      const run = (...argv: string[]) =>
        Bun.spawnSync([join(dist, 'verity'), ...argv], { cwd: dir, stdout: 'pipe', stderr: 'pipe' });
      const help = run('--help');
      expect(help.exitCode).toBe(0);
      expect(help.stdout.toString()).toContain('verity serve');
      const check = run('config', 'check', '--config', 'verity.toml', '--json');
      expect(check.exitCode).toBe(0);
      expect(JSON.parse(check.stdout.toString()).valid).toBe(true);
      const migrate = run('migrate', '--config', 'verity.toml', '--json');
      expect(migrate.stderr.toString()).toBe('');
      expect(migrate.exitCode).toBe(0);
      const again = run('migrate', '--config', 'verity.toml', '--json');
      expect(again.exitCode).toBe(0);
      expect(run('frobnicate').exitCode).toBe(2);
    } finally {
      cleanup();
    }
  }, 60_000);

  // docs/architecture.md#startup-pages
  test('once started, dist/verity gives the kernel back the pages of itself that start-up touched', async () => {
    const { dir, cleanup } = tempDir('verity-pages');
    const server = await serveOnFreePort(
      join(dir, 'verity.toml'),
      (port) =>
        `[server]\nlisten = "127.0.0.1:${port}"\n[database]\npath = "${join(dir, 'v.db')}"\n` +
        `[keys]\ndir = "${join(dir, 'keys')}"\n[log]\nlevel = "debug"\n`,
      [join(dist, 'verity')],
    );
    try {
      let released: { resident_kib_before: number; resident_kib_after: number } | undefined;
      await waitFor(
        'the start-up pages to be released',
        () => {
          const line = server
            .output()
            .split('\n')
            .find((l) => l.includes('"start-up pages released"'));
          released = line ? JSON.parse(line) : undefined;
          return released !== undefined;
        },
        20_000,
      );
      // Start-up touched tens of MiB of the executable (a bare route alone touches about 26).
      expect(released!.resident_kib_before).toBeGreaterThan(16 * 1024);
      expect(released!.resident_kib_after).toBeLessThan(released!.resident_kib_before / 4);
      // As the kernel counts them, from outside: what has run since brought only a part back.
      expect(executableResidentKib(server.proc.pid)).toBeLessThan(released!.resident_kib_before / 2);
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    } finally {
      server.proc.kill();
      await server.proc.exited;
      cleanup();
    }
  }, 60_000);

  test('nothing under src/ locates files relative to the source, so the binary needs no source tree', () => {
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (/\.(ts|tsx)$/.test(name) && !path.includes('/src/platform/')) {
          const text = readFileSync(path, 'utf8');
          if (/import\.meta\.(url|dir|dirname|path|file)|__dirname|__filename|\brequire\(|node:fs/.test(text))
            offenders.push(path.slice(root.length + 1));
        }
      }
    };
    walk(join(root, 'src'));
    expect(offenders).toEqual([]);
  });
});
