import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli } from '../helpers/cli.ts';
import { tempDir } from '../helpers/context.ts';
import { freshDatabaseUrl } from '../helpers/postgres.ts';
import { freePort } from '../helpers/server.ts';
import { waitFor } from '../helpers/wait.ts';

const root = join(import.meta.dir, '..', '..');

export interface Instance {
  /** Where this instance listens, e.g. http://127.0.0.1:41234. */
  url: string;
  proc: ReturnType<typeof Bun.spawn>;
  kill(signal?: 'SIGKILL' | 'SIGTERM'): Promise<void>;
}

export interface Fleet {
  instances: Instance[];
  /** The database every instance shares. */
  databaseUrl: string;
  /** A config on the same database and keys, for CLI calls (its `listen` is never bound). */
  configPath: string;
  /** The public URL every instance is configured with (issuer, redirects, form origins). */
  baseUrl: string;
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
 * error. Its output is read to the end, so it never blocks on a full pipe.
 */
async function spawnOnce(configPath: string) {
  const proc = Bun.spawn([process.execPath, 'src/main.ts', 'serve', '--config', configPath], {
    cwd: root,
    stdout: 'pipe',
    stderr: 'pipe',
  });
  let out = '';
  let listening = false;
  const drain = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    const reader = stream.getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return true;
      if (listening) continue;
      out += decoder.decode(value, { stream: true });
      listening = out.includes('"msg":"listening"');
    }
  };
  const ended = Promise.all([drain(proc.stdout), drain(proc.stderr)]).then(() => true);
  try {
    await waitFor(
      'the server to listen',
      async () => {
        if (listening) return true;
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
  return proc;
}

/**
 * `n` real `verity serve` processes on one fresh PostgreSQL database and one keys directory, each on
 * its own loopback port, all configured with the same public `baseUrl` (as behind a load balancer).
 * The database is migrated once before they start.
 */
export async function startInstances(
  n: number,
  /** `server`: further lines of `[server]`; `extra`: further sections. */
  opts: { server?: string; extra?: string; baseUrl?: string } = {},
): Promise<Fleet> {
  const tmp = tempDir('verity-fleet');
  const databaseUrl = freshDatabaseUrl();
  const baseUrl = opts.baseUrl ?? 'http://localhost:8080';
  const toml = (port: number) => `[database]
url = "${databaseUrl}"
[keys]
dir = "${join(tmp.dir, 'keys')}"
[server]
listen = "127.0.0.1:${port}"
base_url = "${baseUrl}"
signing_threads = 0
${opts.server ?? ''}
${opts.extra ?? ''}
`;
  const configPath = join(tmp.dir, 'verity.toml');
  writeFileSync(configPath, toml(await freePort()));
  const migrated = await cli('migrate', '--config', configPath);
  if (migrated.code !== 0) throw new Error(`migrate failed: ${migrated.stderr}`);

  const instances: Instance[] = [];
  const start = async (i: number): Promise<Instance> => {
    const path = join(tmp.dir, `verity-${i}.toml`);
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      writeFileSync(path, toml(port));
      try {
        const proc = await spawnOnce(path);
        return {
          url: `http://127.0.0.1:${port}`,
          proc,
          async kill(signal = 'SIGKILL') {
            proc.kill(signal);
            await proc.exited;
          },
        };
      } catch (e) {
        // Another process may have been handed the port in between; only then try another.
        if (!(e instanceof ExitedBeforeListening && /EADDRINUSE|in use/i.test(e.output)) || attempt === 3)
          throw e;
      }
    }
  };
  const started = await Promise.allSettled(Array.from({ length: n }, (_, i) => start(i)));
  for (const s of started) if (s.status === 'fulfilled') instances.push(s.value);
  const failed = started.find((s) => s.status === 'rejected');
  if (failed) {
    await Promise.all(instances.map((i) => i.kill()));
    tmp.cleanup();
    throw failed.reason;
  }
  return {
    instances,
    databaseUrl,
    configPath,
    baseUrl,
    async stop() {
      await Promise.all(instances.map((i) => i.kill('SIGKILL')));
      tmp.cleanup();
    },
  };
}
