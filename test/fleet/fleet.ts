import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli } from '../helpers/cli.ts';
import { tempDir } from '../helpers/context.ts';
import { freshDatabaseUrl } from '../helpers/postgres.ts';
import { serveOnFreePort } from '../helpers/serve-process.ts';
import { freePort } from '../helpers/server.ts';
import { CALLBACK, type Client } from './browser.ts';

export interface Fleet {
  /** Where each instance listens now, e.g. http://127.0.0.1:41234 (a restart may change it). */
  urls: string[];
  procs: ReturnType<typeof Bun.spawn>[];
  /** A config on the fleet's database and keys, for CLI calls (its `listen` is never bound). */
  configPath: string;
  /** The PostgreSQL database every instance shares. */
  dbUrl: string;
  /** The public URL every instance is configured with (issuer, redirects, form origins). */
  baseUrl: string;
  /** What instance i has written to stdout (JSON log lines) and stderr, since it last started. */
  output(i: number): string;
  /** Stops instance i (SIGKILL unless told otherwise) and waits for it to exit. */
  kill(i: number, signal?: 'SIGKILL' | 'SIGTERM'): Promise<void>;
  /** Starts instance i again, on the same configuration and a free port. */
  restart(i: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * `n` real `verity serve` processes on one fresh PostgreSQL database (whatever VERITY_TEST_ENGINE
 * says) and one keys directory, each on its own loopback port, configured alike otherwise: the same
 * public base URL, as behind a load balancer. The database is migrated once before they start.
 * `server`: further lines of `[server]`; `extraToml`: further sections.
 */
export async function startFleet(
  n: number,
  opts: { extraToml?: string; server?: string; baseUrl?: string } = {},
): Promise<Fleet> {
  const tmp = tempDir('verity-fleet');
  const dbUrl = freshDatabaseUrl();
  const baseUrl = opts.baseUrl ?? 'http://localhost:8080';
  const toml = (port: number) => `[database]
url = "${dbUrl}"
[keys]
dir = "${join(tmp.dir, 'keys')}"
[server]
listen = "127.0.0.1:${port}"
base_url = "${baseUrl}"
signing_threads = 0
${opts.server ?? ''}
${opts.extraToml ?? ''}
`;
  const configPath = join(tmp.dir, 'verity.toml');
  writeFileSync(configPath, toml(await freePort()));
  const migrated = await cli('migrate', '--config', configPath);
  if (migrated.code !== 0) throw new Error(`migrate failed: ${migrated.stderr}`);

  const urls: string[] = [];
  const procs: ReturnType<typeof Bun.spawn>[] = [];
  const outputs: (() => string)[] = [];
  const start = async (i: number) => {
    const { proc, output, url } = await serveOnFreePort(join(tmp.dir, `verity-${i}.toml`), toml);
    urls[i] = url;
    procs[i] = proc;
    outputs[i] = output;
  };
  const kill = async (i: number, signal: 'SIGKILL' | 'SIGTERM' = 'SIGKILL') => {
    procs[i]?.kill(signal);
    await procs[i]?.exited;
  };
  const stop = async () => {
    await Promise.all(procs.map((_, i) => kill(i)));
    tmp.cleanup();
  };
  const started = await Promise.allSettled(Array.from({ length: n }, (_, i) => start(i)));
  const failed = started.find((s) => s.status === 'rejected');
  if (failed) {
    await stop();
    throw failed.reason;
  }
  return {
    urls,
    procs,
    configPath,
    dbUrl,
    baseUrl,
    output: (i) => outputs[i]?.() ?? '',
    kill,
    restart: start,
    stop,
  };
}

/** A confidential sandbox application made through the CLI on the fleet's database, allowed `openid email`. */
export async function createClient(
  f: Pick<Fleet, 'configPath'>,
  name: string,
  redirectUris: string[] = [CALLBACK],
): Promise<Client & { applicationId: string }> {
  const app = await cli(
    'apps',
    'create',
    '--name',
    name,
    '--type',
    'confidential',
    ...redirectUris.flatMap((u) => ['--redirect-uri', u]),
    '--scopes',
    'openid email',
    '--config',
    f.configPath,
    '--json',
  );
  if (app.code !== 0) throw new Error(app.stderr);
  return app.json;
}
