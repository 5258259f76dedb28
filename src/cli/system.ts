import { migrate, pendingMigrations } from '../db/migrate.ts';
import { openDb } from '../db/open.ts';
import { systemClock } from '../platform/clock.ts';
import type { Command } from './command.ts';

export const systemCommands: Command[] = [
  {
    name: 'migrate',
    summary: 'Apply pending database migrations.',
    async run(cli) {
      const config = await cli.loadConfig();
      const db = await openDb(config.database.path);
      try {
        const applied = migrate(db, systemClock);
        cli.print(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date', {
          applied,
          pending: pendingMigrations(db),
        });
      } finally {
        db.close();
      }
      return 0;
    },
  },
  {
    name: 'config check',
    summary: 'Validate the configuration file and print the effective settings.',
    async run(cli) {
      const config = await cli.loadConfig();
      cli.print(`configuration is valid (${cli.configPath || './verity.toml or defaults'})`, {
        valid: true,
        config: redact(config),
      });
      return 0;
    },
  },
];

/** Secret-bearing keys are shown as set/unset, never their values. */
function redact(config: Awaited<ReturnType<Parameters<Command['run']>[0]['loadConfig']>>) {
  return {
    ...config,
    oidc: { ...config.oidc, pairwise_secret: config.oidc.pairwise_secret ? '(set)' : '' },
    webhooks: { ...config.webhooks, secret_key: config.webhooks.secret_key ? '(set)' : '' },
    face: { ...config.face, http_token: config.face.http_token ? '(set)' : '' },
  };
}
