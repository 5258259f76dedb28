/**
 * Starts the server each way it ships and checks it from the outside:
 *   bun          `bun src/main.ts serve --config F`
 *   node         `node dist/node/verity.mjs serve --config F` (Node 20, better-sqlite3)
 *   binary       `dist/verity serve --config F`
 *   deno         `deno run -A src/main.ts serve --config F` (Deno 2, node:sqlite)
 *   deno-binary  `dist/verity-deno serve --config F`
 * Each start gets a fresh directory holding its config file, database and keys. The built artifacts run
 * with that directory as their working directory, so nothing is read from the source tree at run time;
 * the source runs from the checkout, as `npm start` does (Bun reads tsconfig.json from there). The checks:
 * /healthz answers, /readyz is ready, the JWKS holds an RS256 signing key with a kid, discovery names
 * the configured issuer, and SIGTERM stops the process with exit code 0.
 *   binary-postgres  `dist/verity serve` as `binary`, with `[database] url` naming a new database of the
 *                    tests' PostgreSQL server (test/helpers/postgres.ts): its connection thread
 *                    (postgres.worker.ts) is built beside it, and drizzle goes inside the binary.
 *
 * Usage: bun scripts/smoke.ts [CASE...]   (every case when none is named; run `npm run build` first for
 * the built ones. dist/verity-deno needs a download the build may have skipped, and binary-postgres
 * a PostgreSQL installation: when missing, that case is skipped with a message unless it is named.)
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Engine } from '../src/platform/sql-driver.ts';
import { freePort } from '../test/helpers/port.ts';
import { freshDatabaseUrl, postgresAvailable } from '../test/helpers/postgres.ts';

export type Way = 'bun' | 'node' | 'binary' | 'deno' | 'deno-binary';
export const WAYS: Way[] = ['bun', 'node', 'binary', 'deno', 'deno-binary'];

const root = join(import.meta.dir, '..');

/** The file a way needs before it can start (the build's output in `dist`), if any. */
export function artifactFor(way: Way, dist = join(root, 'dist')): string | undefined {
  if (way === 'node') return join(dist, 'node/verity.mjs');
  if (way === 'binary') return join(dist, 'verity');
  if (way === 'deno-binary') return join(dist, 'verity-deno');
  return undefined;
}

export function commandFor(way: Way, dist?: string): string[] {
  if (way === 'bun') return [process.execPath, join(root, 'src/main.ts')];
  if (way === 'deno') return [join(root, 'node_modules/.bin/deno'), 'run', '-A', join(root, 'src/main.ts')];
  if (way === 'node') return ['node', artifactFor(way, dist)!];
  return [artifactFor(way, dist)!];
}

export interface SmokeResult {
  way: Way;
  startedInMs: number;
  kid: string;
  exitCode: number | null;
}

class SmokeError extends Error {}

function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new SmokeError(message);
}

async function getJson(url: string): Promise<{ status: number; headers: Headers; body: any }> {
  const res = await fetch(url);
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new SmokeError(`${url} answered ${res.status} with non-JSON: ${text.slice(0, 200)}`);
  }
  return { status: res.status, headers: res.headers, body };
}

export interface Started {
  way: Way;
  baseUrl: string;
  dir: string;
  configPath: string;
  /** The server's process id. */
  pid: number;
  startedInMs: number;
  /** Runs a CLI command of the same way against the same config; stdout is returned. */
  cli(...argv: string[]): { exitCode: number; stdout: string; stderr: string };
  /** SIGTERM, then the exit code (null when it did not stop within 10 s and was killed). */
  stop(): Promise<number | null>;
  /** The last lines the server printed, for failure messages. */
  output(): Promise<string>;
  /** Kills the process if still running and removes its directory. */
  dispose(): Promise<void>;
}

/** Starts one way with a config file in a fresh directory and waits until /healthz answers. */
export async function startWay(
  way: Way,
  opts: { dist?: string; startTimeoutMs?: number; extraConfig?: string; engine?: Engine } = {},
): Promise<Started> {
  const artifact = artifactFor(way, opts.dist);
  if (artifact && !existsSync(artifact)) throw new SmokeError(`${artifact} is missing: run "npm run build"`);
  const dir = mkdtempSync(join(tmpdir(), `verity-smoke-${way}-`));
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const configPath = join(dir, 'verity.toml');
  writeFileSync(
    configPath,
    [
      '[server]',
      `listen = "127.0.0.1:${port}"`,
      `base_url = "${baseUrl}"`,
      '[database]',
      `path = "${join(dir, 'state/verity.db')}"`,
      // A new database of the test helper's PostgreSQL server (test/helpers/postgres.ts).
      opts.engine === 'postgres' ? `url = "${freshDatabaseUrl()}"` : '',
      '[keys]',
      `dir = "${join(dir, 'state/keys')}"`,
      opts.extraConfig ?? '',
      '',
    ].join('\n'),
  );
  const command = commandFor(way, opts.dist);
  const cwd = way === 'bun' || way === 'deno' ? root : dir;
  const env = { ...process.env, NODE_ENV: 'production' };
  const child = Bun.spawn([...command, 'serve', '--config', configPath], {
    cwd,
    stdout: 'pipe',
    stderr: 'pipe',
    env,
  });
  const output = Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()]);
  const lastLines = async () => (await output).join('').trim().split('\n').slice(-20).join('\n');
  const dispose = async () => {
    if (child.exitCode === null) child.kill('SIGKILL');
    await child.exited;
    rmSync(dir, { recursive: true, force: true });
  };
  const started = performance.now();
  try {
    const deadline = started + (opts.startTimeoutMs ?? 30_000);
    let up = false;
    while (!up) {
      if (child.exitCode !== null) throw new SmokeError(`exited with code ${child.exitCode} before serving`);
      if (performance.now() > deadline) throw new SmokeError('/healthz did not answer in time');
      try {
        const res = await fetch(`${baseUrl}/healthz`);
        up = res.status === 200 && (await res.json()).status === 'ok';
        check(res.headers.get('x-request-id'), '/healthz has no X-Request-Id');
      } catch (e) {
        if (e instanceof SmokeError) throw e;
        await Bun.sleep(100);
      }
    }
  } catch (e) {
    child.kill('SIGKILL');
    await child.exited;
    const log = await lastLines();
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`smoke (${way}): ${(e as Error).message}\n--- output ---\n${log}`);
  }
  return {
    way,
    baseUrl,
    dir,
    configPath,
    pid: child.pid,
    startedInMs: Math.round(performance.now() - started),
    cli(...argv) {
      const run = Bun.spawnSync([...command, ...argv, '--config', configPath], {
        cwd,
        stdout: 'pipe',
        stderr: 'pipe',
        env,
      });
      return { exitCode: run.exitCode, stdout: run.stdout.toString(), stderr: run.stderr.toString() };
    },
    async stop() {
      child.kill('SIGTERM');
      return Promise.race([child.exited, Bun.sleep(10_000).then(() => null)]);
    },
    output: lastLines,
    dispose,
  };
}

/** Starts one way with a config file in a fresh directory, checks it, stops it. Throws on any failure. */
export async function smoke(
  way: Way,
  opts: { dist?: string; startTimeoutMs?: number; engine?: Engine } = {},
): Promise<SmokeResult> {
  const server = await startWay(way, opts);
  const { baseUrl } = server;
  try {
    const ready = await getJson(`${baseUrl}/readyz`);
    check(ready.status === 200 && ready.body.status === 'ready', `/readyz: ${JSON.stringify(ready.body)}`);

    const jwks = await getJson(`${baseUrl}/.well-known/jwks.json`);
    check(jwks.status === 200, `/.well-known/jwks.json answered ${jwks.status}`);
    const keys: any[] = Array.isArray(jwks.body.keys) ? jwks.body.keys : [];
    const key = keys.find((k) => k.kty === 'RSA' && k.alg === 'RS256' && k.use === 'sig');
    check(key, `no RS256 signing key in the JWKS: ${JSON.stringify(jwks.body).slice(0, 300)}`);
    check(typeof key.kid === 'string' && key.kid.length > 0, 'the RS256 key has no kid');
    check(key.n && key.e, 'the RS256 key has no modulus or exponent');
    check(!('d' in key), 'the JWKS exposes a private key');

    const discovery = await getJson(`${baseUrl}/.well-known/openid-configuration`);
    check(discovery.status === 200, `discovery answered ${discovery.status}`);
    check(discovery.body.issuer === baseUrl, `discovery issuer ${discovery.body.issuer} is not ${baseUrl}`);

    const exitCode = await server.stop();
    check(exitCode !== null, 'did not stop within 10 s of SIGTERM');
    check(exitCode === 0, `SIGTERM ended it with exit code ${exitCode}`);
    // `[database] url` wins over `path`: on PostgreSQL no SQLite file may appear.
    check(
      existsSync(join(server.dir, 'state/verity.db')) === (opts.engine !== 'postgres'),
      'the database is not where the config put it',
    );
    return { way, startedInMs: server.startedInMs, kid: key.kid, exitCode };
  } catch (e) {
    // Killed first: its output is complete only once it has exited.
    await server.dispose();
    const log = await server.output();
    throw new Error(`smoke (${way}): ${(e as Error).message}\n--- output ---\n${log}`);
  } finally {
    await server.dispose();
  }
}

/** Each way on SQLite, and the compiled binary on PostgreSQL. */
const CASES: Record<string, { way: Way; engine: Engine }> = {
  ...Object.fromEntries(WAYS.map((way) => [way, { way, engine: 'sqlite' as Engine }])),
  'binary-postgres': { way: 'binary', engine: 'postgres' },
};

if (import.meta.main) {
  const named = process.argv.slice(2);
  const unknown = named.filter((c) => !(c in CASES));
  if (unknown.length) {
    console.error(`usage: bun scripts/smoke.ts [${Object.keys(CASES).join('] [')}]`);
    process.exit(2);
  }
  let failed = false;
  for (const name of named.length ? named : Object.keys(CASES)) {
    const { way, engine } = CASES[name]!;
    const artifact = artifactFor(way);
    if (way === 'deno-binary' && !named.length && !existsSync(artifact!)) {
      console.warn(`smoke ${way} skipped: ${artifact} was not built (see scripts/build.ts)`);
      continue;
    }
    if (engine === 'postgres' && !named.length && !postgresAvailable()) {
      console.warn(`smoke ${name} skipped: PostgreSQL is not installed`);
      continue;
    }
    try {
      const r = await smoke(way, { engine });
      console.log(`smoke ${name.padEnd(15)} ok: up in ${r.startedInMs} ms, RS256 kid ${r.kid}, clean exit`);
    } catch (e) {
      failed = true;
      console.error((e as Error).message);
    }
  }
  process.exit(failed ? 1 : 0);
}
