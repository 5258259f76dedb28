import { recordAudit } from '../audit/audit.store.ts';
import { BackupError, PG_BACKUP } from '../backup/archive.ts';
import { createBackup } from '../backup/backup.ts';
import { restoreBackup } from '../backup/restore.ts';
import { openDb } from '../db/open.ts';
import { systemClock } from '../platform/clock.ts';
import { files } from '../platform/files.ts';
import type { Command } from './command.ts';
import { positional } from './command.ts';

export const backupCommands: Command[] = [
  {
    name: 'backup',
    summary:
      'Write one archive (mode 0600) holding a consistent snapshot of the database and the keys directory ' +
      '(signing keys, instance secrets) to FILE. Safe while the server runs.',
    usage: 'FILE [--force]',
    options: { force: { type: 'boolean', description: 'replace FILE if it exists' } },
    async run(cli, args) {
      const file = positional(args, 0, 'FILE');
      const config = await cli.loadConfig();
      if (config.database.url) throw new BackupError(PG_BACKUP);
      // Opening a missing path would create an empty database and back that up; say so instead.
      if (!(await files.exists(config.database.path)))
        throw new BackupError(`no database at ${config.database.path}`);
      // The database alone, not a full context: a backup must not create or rotate signing keys.
      const db = await openDb(config.database.path);
      try {
        const result = await createBackup(db, config.keys.dir, file, {
          force: args.values.force === true,
          now: systemClock.now(),
        });
        recordAudit(db, systemClock, { actor: 'cli', action: 'database.backup', details: { ...result } });
        const configured = config.oidc.pairwise_secret || config.webhooks.secret_key;
        cli.print(
          `wrote ${result.file} (${result.bytes} bytes, database and ${result.keys} key files, sha256 ${result.sha256})` +
            (configured
              ? '\nSecrets set in the config are not in the archive: keep the config with it.'
              : ''),
          result,
        );
      } finally {
        db.close();
      }
      return 0;
    },
  },
  {
    name: 'restore',
    summary:
      'Restore a backup archive as [database] path and [keys] dir (server stopped): verifies the archive, refuses a ' +
      'database another process has open, replaces an existing one only with --force, removes stale -wal/-shm ' +
      'files, then runs the check of "verity keys check".',
    usage: 'FILE [--force]',
    options: { force: { type: 'boolean', description: 'replace an existing database and keys directory' } },
    async run(cli, args) {
      const file = positional(args, 0, 'FILE');
      const config = await cli.loadConfig();
      const r = await restoreBackup(config, file, { force: args.values.force === true });
      cli.print(
        `restored the backup of ${r.createdAt} into ${r.database} and ${r.keysDir} (${r.keys} key files); the key check passed` +
          r.warnings.map((w) => `\nwarning: ${w}`).join(''),
        r,
      );
      return 0;
    },
  },
];
