import { createHandlers } from './app.ts';
import { createContext } from './bootstrap.ts';
import type { Config } from './config/schema.ts';
import type { AppContext } from './context.ts';
import { startBackgroundCheckpoints } from './db/checkpoint.ts';
import { startJobs } from './jobs.ts';
import type { Logger } from './log.ts';
import type { Clock } from './platform/clock.ts';
import { assertBindable, type Listening, parseListen } from './platform/listen.ts';
import { runtime } from './platform/runtime.ts';

export interface RunningServer {
  ctx: AppContext;
  url: string;
  port: number;
  stop(): Promise<void>;
}

/**
 * Checks the listen address can be bound, opens the database (migrating it), starts its background checkpoints, the HTTP listener and the
 * scheduled jobs.
 */
export async function startServer(
  config: Config,
  opts: {
    clock?: Clock;
    log?: Logger;
    jobs?: boolean;
    port?: number;
    /** Routes of the caller's own (the benchmark's), behind the app's middleware. */
    extend?: Parameters<typeof createHandlers>[1];
  } = {},
): Promise<RunningServer> {
  const addr = parseListen(config.server.listen);
  const port = opts.port ?? addr.port;
  // A busy or forbidden address fails here, before the database and keys are created.
  if (port !== 0) await assertBindable(addr.hostname, port);
  const ctx = await createContext(config, { clock: opts.clock, log: opts.log, migrate: true });
  const stopCheckpoints = await startBackgroundCheckpoints(ctx.db, ctx.log);
  const { fetch, routes } = createHandlers(ctx, opts.extend);
  const server: Listening = await runtime.listen(fetch, {
    hostname: addr.hostname,
    port,
    routes,
  });
  const unboundHeap = runtime.boundHeap();
  const stopJobs = opts.jobs === false ? () => {} : startJobs(ctx);
  const host = addr.hostname.includes(':') ? `[${addr.hostname}]` : addr.hostname;
  return {
    ctx,
    url: `http://${host}:${server.port}`,
    port: server.port,
    async stop() {
      stopJobs();
      unboundHeap();
      await server.close();
      await stopCheckpoints();
      ctx.keys.close();
      ctx.db.close();
    },
  };
}
