import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli } from '../helpers/cli.ts';
import { tempDir } from '../helpers/context.ts';
import { freshDatabaseUrl } from '../helpers/postgres.ts';
import { freePort } from '../helpers/server.ts';
import { waitFor } from '../helpers/wait.ts';

const root = join(import.meta.dir, '..', '..');

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

class ExitedBeforeListening extends Error {
  constructor(readonly output: string) {
    super(`the server exited before it listened:\n${output}`);
  }
}

/**
 * `verity serve` on a config, once it has logged that it listens. Nothing polls its port before (a
 * connection attempt could be handed that very port and hold it); if it exits first, its output is the
 * error. Both pipes are read to the end, so it never blocks on a full one.
 */
async function spawnOnce(configPath: string) {
  const proc = Bun.spawn([process.execPath, 'src/main.ts', 'serve', '--config', configPath], {
    cwd: root,
    stdout: 'pipe',
    stderr: 'pipe',
  });
  let out = '';
  const drain = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    const reader = stream.getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      out = (out + decoder.decode(value, { stream: true })).slice(-1_000_000);
    }
  };
  const ended = Promise.all([drain(proc.stdout), drain(proc.stderr)]).then(() => true);
  try {
    await waitFor(
      'the server to listen',
      async () => {
        if (out.includes('"msg":"listening"')) return true;
        if (await Promise.race([ended, Bun.sleep(20).then(() => false)]))
          throw new ExitedBeforeListening(out);
        return false;
      },
      30_000,
    );
  } catch (e) {
    proc.kill('SIGKILL');
    throw e;
  }
  return { proc, output: () => out };
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
    const path = join(tmp.dir, `verity-${i}.toml`);
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      writeFileSync(path, toml(port));
      try {
        const { proc, output } = await spawnOnce(path);
        urls[i] = `http://127.0.0.1:${port}`;
        procs[i] = proc;
        outputs[i] = output;
        return;
      } catch (e) {
        // Another process may have been handed the port in between; only then is another tried.
        if (!(e instanceof ExitedBeforeListening && /EADDRINUSE|in use/i.test(e.output)) || attempt === 3)
          throw e;
      }
    }
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
