import { CopyMismatchError, copySqliteToPostgres, type TableCount } from '../db/copy.ts';
import { isPostgresUrl } from '../db/open.ts';
import { systemClock } from '../platform/clock.ts';
import { type Command, required, UsageError } from './command.ts';

const KEYS_NOTE =
  'The keys directory and the secrets were not copied or changed: run every instance with the same [keys] dir ' +
  '(and its files) and the same secrets as before.';

/** The counts side by side, a `!` before a table whose counts differ. */
function countTable(tables: TableCount[]): string {
  const width = Math.max(5, ...tables.map((t) => t.table.length));
  const line = (mark: string, name: string, a: string | number, b: string | number) =>
    `${mark} ${name.padEnd(width)} ${String(a).padStart(10)} ${String(b).padStart(10)}`;
  const total = (side: 'source' | 'target') => tables.reduce((n, t) => n + t[side], 0);
  return [
    line(' ', 'table', 'sqlite', 'postgres'),
    ...tables.map((t) => line(t.source === t.target ? ' ' : '!', t.table, t.source, t.target)),
    line(' ', 'total', total('source'), total('target')),
  ].join('\n');
}

export const dbCommands: Command[] = [
  {
    name: 'db copy',
    summary:
      'Copy a SQLite database into PostgreSQL (server stopped): migrates the target, refuses one that holds rows ' +
      'unless --replace, copies every table in one transaction, and commits only when every row count matches. ' +
      'The keys directory and secrets are not copied or changed.',
    usage: '--from sqlite:PATH --to postgres://USER:PASSWORD@HOST/DB [--replace]',
    options: {
      from: { type: 'string', description: 'the SQLite database, as sqlite:PATH (opened read-only)' },
      to: { type: 'string', description: 'the PostgreSQL database, as a postgres:// URL' },
      replace: {
        type: 'boolean',
        description: 'delete the rows the target already holds, in the same transaction, before copying',
      },
    },
    async run(cli, args) {
      const from = required(args, 'from');
      const to = required(args, 'to');
      if (!from.startsWith('sqlite:') || from === 'sqlite:')
        throw new UsageError(`--from must be sqlite:PATH, not "${from}"`);
      if (!isPostgresUrl(to)) throw new UsageError('--to must be a postgres:// or postgresql:// URL');
      const replace = args.values.replace === true;
      try {
        const r = await copySqliteToPostgres({ from: from.slice(7), to, replace, clock: systemClock });
        const rows = r.tables.reduce((n, t) => n + t.target, 0);
        cli.print(
          [
            countTable(r.tables),
            '',
            `copied ${rows} rows in ${r.tables.length} tables from ${r.from} to ${r.to}; every count matches` +
              (r.replaced ? ' (the rows the target held were deleted first)' : ''),
            KEYS_NOTE,
            'Next: set [database] url (or VERITY_DATABASE_URL) to the PostgreSQL URL and start the server.',
          ].join('\n'),
          { ...r, rows, match: true, keysCopied: false },
        );
        return 0;
      } catch (e) {
        if (!(e instanceof CopyMismatchError)) throw e;
        cli.print(`${countTable(e.tables)}\n\nverity: ${e.message}`, {
          error: { code: 'COUNT_MISMATCH', message: e.message },
          tables: e.tables,
          match: false,
        });
        return 1;
      }
    },
  },
];
