import { recordAudit } from '../audit/audit.store.ts';
import { BackupError, backupDatabase } from '../db/backup.ts';
import { openDb } from '../db/open.ts';
import { systemClock } from '../platform/clock.ts';
import { files } from '../platform/files.ts';
import type { Command } from './command.ts';
import { positional } from './command.ts';

export const backupCommands: Command[] = [
  {
    name: 'backup',
    summary: 'Write a consistent copy of the database to FILE (safe while the server runs).',
    usage: 'FILE [--force]',
    options: { force: { type: 'boolean', description: 'replace FILE if it exists' } },
    async run(cli, args) {
      const file = positional(args, 0, 'FILE');
      const config = await cli.loadConfig();
      // Opening a missing path would create an empty database and back that up; say so instead.
      if (!(await files.exists(config.database.path)))
        throw new BackupError(`no database at ${config.database.path}`);
      // The database alone, not a full context: a backup must not create or rotate signing keys.
      const db = await openDb(config.database.path);
      try {
        const result = await backupDatabase(db, file, { force: args.values.force === true });
        recordAudit(db, systemClock, { actor: 'cli', action: 'database.backup', details: { ...result } });
        cli.print(
          `wrote ${result.file} (${result.bytes} bytes)\nThe signing keys and instance secrets live in ${config.keys.dir}: back that directory up too.`,
          result,
        );
      } finally {
        db.close();
      }
      return 0;
    },
  },
];
