import { proc } from '../platform/process.ts';
import { startServer } from '../server.ts';
import type { Command } from './command.ts';

export const serveCommands: Command[] = [
  {
    name: 'serve',
    summary: 'Start the server (applies pending migrations first).',
    async run(cli) {
      const config = await cli.loadConfig();
      const server = await startServer(config);
      server.ctx.log.info('listening', {
        listen: config.server.listen,
        base_url: config.server.base_url,
        identity_url: config.server.identity_url,
        developer_url: config.server.developer_url,
      });
      for (const line of await welcomeLines(server.ctx)) server.ctx.log.info(line);
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

/** Extended by the newcomer's path: how to try a sandbox sign-in on this server. */
export const welcomeHooks: ((ctx: import('../context.ts').AppContext) => Promise<string[]> | string[])[] = [];

async function welcomeLines(ctx: import('../context.ts').AppContext): Promise<string[]> {
  const out: string[] = [];
  for (const hook of welcomeHooks) out.push(...(await hook(ctx)));
  return out;
}
