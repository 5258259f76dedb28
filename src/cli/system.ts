import { DEFAULT_CONFIG_PATH } from '../config/file.ts';
import { configWarnings } from '../config/warnings.ts';
import { migrate, pendingMigrations } from '../db/migrate.ts';
import { databaseTarget, openDb, redactUrl } from '../db/open.ts';
import { jsonLogger } from '../log.ts';
import { systemClock } from '../platform/clock.ts';
import { proc } from '../platform/process.ts';
import { VERSION } from '../version.ts';
import type { Command } from './command.ts';

export const systemCommands: Command[] = [
  {
    name: 'migrate',
    summary: 'Apply pending database migrations.',
    async run(cli) {
      const config = await cli.loadConfig();
      const db = await openDb(databaseTarget(config));
      try {
        // Waiting for another process's migration is said on stderr, as the server logs it.
        const log = jsonLogger('warn', (line) => proc.stderr(`${line}\n`));
        const applied = migrate(db, systemClock, { log });
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
    summary:
      'Validate the configuration file, name the file read, and warn (without failing) about settings risky in production.',
    async run(cli) {
      const { config, file } = await cli.readConfig();
      const warnings = configWarnings(config);
      const source = file ? `read ${file}` : `no ${DEFAULT_CONFIG_PATH}: using the defaults only`;
      cli.print([source, 'configuration is valid', ...warnings.map((w) => `warning: ${w}`)].join('\n'), {
        valid: true,
        file: file ?? null,
        warnings,
        config: redact(config),
      });
      return 0;
    },
  },
  {
    name: 'version',
    summary: 'Print the version (also: verity --version).',
    run(cli) {
      cli.print(`verity ${VERSION}`, { version: VERSION });
      return 0;
    },
  },
];

/** Secret-bearing keys are shown as set/unset, never their values; the database URL without its password. */
function redact(config: Awaited<ReturnType<Parameters<Command['run']>[0]['loadConfig']>>) {
  return {
    ...config,
    server: { ...config.server, metrics_token: config.server.metrics_token ? '(set)' : '' },
    database: { ...config.database, url: config.database.url && redactUrl(config.database.url) },
    oidc: { ...config.oidc, pairwise_secret: config.oidc.pairwise_secret ? '(set)' : '' },
    webhooks: { ...config.webhooks, secret_key: config.webhooks.secret_key ? '(set)' : '' },
    face: { ...config.face, http_token: config.face.http_token ? '(set)' : '' },
    email: { ...config.email, password: config.email.password ? '(set)' : '' },
  };
}
