import type { Config } from '../config/schema.ts';
import { configWarnings } from '../config/warnings.ts';
import type { AppContext } from '../context.ts';
import { proc } from '../platform/process.ts';
import { runtime } from '../platform/runtime.ts';
import { signingThreads } from '../platform/signing-pool.ts';
import { startServer } from '../server.ts';
import { VERSION } from '../version.ts';
import type { Command } from './command.ts';
import { sandboxWelcome } from './welcome.ts';

export const serveCommands: Command[] = [
  {
    name: 'serve',
    summary: 'Start the server (applies pending migrations first).',
    async run(cli) {
      const config = await cli.loadConfig();
      const server = await startServer(config);
      server.ctx.log.info('listening', {
        version: VERSION,
        runtime: runtime.name,
        signing_threads: signingThreads(config.server.signing_threads),
        listen: config.server.listen,
        base_url: config.server.base_url,
        identity_url: config.server.identity_url,
        developer_url: config.server.developer_url,
      });
      for (const line of await welcomeLines(server.ctx, cli.configPath)) server.ctx.log.info(line);
      logRiskySettings(server.ctx, config);
      // Start-up is over: what it alone used need not stay resident (a failure only costs memory).
      runtime.releaseStartupPages().then(
        (r) =>
          r.released
            ? server.ctx.log.debug('start-up pages released', {
                resident_kib_before: r.beforeKib,
                resident_kib_after: r.afterKib,
              })
            : server.ctx.log.debug('start-up pages not released', { reason: r.why }),
        (e) => server.ctx.log.warn('start-up pages not released', { error: String(e) }),
      );
      let stopping = false;
      proc.onSignal(['SIGINT', 'SIGTERM'], () => {
        if (stopping) return;
        stopping = true;
        server.ctx.log.info('shutting down');
        server.stop().then(() => proc.exit(0));
      });
      await new Promise(() => {});
      return 0;
    },
  },
];

/**
 * Lines logged once the server listens: where things are and how to try a sandbox sign-in. Other
 * features add their own hook (each gets the context and the config file path).
 */
export const welcomeHooks: ((ctx: AppContext, configPath: string) => Promise<string[]> | string[])[] = [
  sandboxWelcome,
];

/** A production-looking instance says at start what `config check` would; plain http is for trying Verity. */
export function logRiskySettings(ctx: AppContext, config: Config): void {
  if (config.server.base_url.startsWith('https:'))
    for (const warning of configWarnings(config)) ctx.log.warn('risky setting', { warning });
}

export async function welcomeLines(ctx: AppContext, configPath: string): Promise<string[]> {
  const out: string[] = [];
  for (const hook of welcomeHooks) out.push(...(await hook(ctx, configPath)));
  return out;
}
