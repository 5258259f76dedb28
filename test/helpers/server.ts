import { parseConfig } from '../../src/config/load.ts';
import type { Logger } from '../../src/log.ts';
import { type FixedClock, fixedClock } from '../../src/platform/clock.ts';
import { type RunningServer, startServer } from '../../src/server.ts';
import { TEST_START, tempDir, testToml, useMigratedDatabase } from './context.ts';
import { testLogger } from './log.ts';
import { freePort } from './port.ts';

export { freePort };

export interface TestServer extends RunningServer {
  clock: FixedClock;
  dir: string;
  /** The TOML the server runs with, for CLI calls against the same database. */
  toml: string;
  configPath: string;
}

/**
 * A real server on a real loopback port with a fresh database. `base_url` is the real address, so
 * redirects, issuers and discovery work for real clients. Jobs are off unless asked for: tests drive
 * them with the fixed clock.
 */
export async function startTestServer(
  /** `server`: further lines of the `[server]` section. */
  opts: { extra?: string; server?: string; clock?: FixedClock; jobs?: boolean; log?: Logger } = {},
): Promise<TestServer> {
  const { dir, cleanup } = tempDir('verity-srv');
  useMigratedDatabase(dir);
  const port = await freePort();
  const toml = `${testToml(dir, opts.extra)}\n[server]\nlisten = "127.0.0.1:${port}"\nbase_url = "http://localhost:${port}"\n${opts.server ?? ''}\n`;
  const configPath = `${dir}/verity.toml`;
  await Bun.write(configPath, toml);
  const clock = opts.clock ?? fixedClock(TEST_START);
  const server = await startServer(parseConfig(toml), {
    clock,
    log: opts.log ?? testLogger,
    jobs: opts.jobs ?? false,
  });
  return {
    ...server,
    clock,
    dir,
    toml,
    configPath,
    async stop() {
      await server.stop();
      cleanup();
    },
  };
}

/** What the server's /metrics counted for this method, route pattern and status (0 when none). */
export async function requestsCounted(server: TestServer, method: string, route: string, status: number) {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const series = `verity_http_requests_total{method="${method}",route="${route}",status="${status}"} `;
  const line = text.split('\n').find((l) => l.startsWith(series));
  return line === undefined ? 0 : Number(line.slice(series.length));
}
