import { isLoopbackHost } from '../config/address.ts';
import { startDemo } from '../demo/start.ts';
import { proc } from '../platform/process.ts';
import { startServer } from '../server.ts';
import type { Command } from './command.ts';
import { logRiskySettings, welcomeLines } from './serve.ts';

export const demoCommands: Command[] = [
  {
    name: 'demo',
    summary:
      'Start the demo relying party ([demo] listen); with --with-server, start Verity beside it (npm start).',
    usage: '[--with-server]',
    options: { 'with-server': { type: 'boolean', description: 'also start the Verity server' } },
    async run(cli, args) {
      const config = await cli.loadConfig();
      const withServer = args.values['with-server'] === true;
      // Try-it mode on this machine: the demo can only receive webhooks on http://localhost, in
      // sandbox. Anywhere else the setting stays as configured.
      const tryIt =
        withServer && config.demo.enabled && isLoopbackHost(new URL(config.server.base_url).hostname);
      const forced = tryIt && !config.webhooks.allow_localhost_in_sandbox;
      if (forced) config.webhooks.allow_localhost_in_sandbox = true;
      const server = withServer ? await startServer(config) : undefined;
      const ctx = server?.ctx ?? (await cli.open());
      if (withServer) {
        ctx.log.info('listening', { listen: config.server.listen, base_url: config.server.base_url });
        for (const line of await welcomeLines(ctx, cli.configPath)) ctx.log.info(line);
        if (forced)
          ctx.log.info('[webhooks] allow_localhost_in_sandbox is on for the demo', {
            base_url: config.server.base_url,
          });
        logRiskySettings(ctx, config);
      }
      const demo = withServer && !config.demo.enabled ? undefined : await startDemo(ctx);
      if (demo) {
        ctx.log.info('demo relying party listening', { url: demo.url, clientId: demo.registration.clientId });
        proc.stdout(
          `\n  Verity is running at ${config.server.base_url}\n  Try it: open ${demo.url} and click "Sign in (popup)" (sandbox persona Ada, "Pass face check", "Allow").\n\n`,
        );
      }
      let stopping = false;
      proc.onSignal(['SIGINT', 'SIGTERM'], () => {
        if (stopping) return;
        stopping = true;
        ctx.log.info('shutting down');
        Promise.all([demo?.stop(), server?.stop()]).then(() => proc.exit(0));
      });
      await new Promise(() => {});
      return 0;
    },
  },
];
