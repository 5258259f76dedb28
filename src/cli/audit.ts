import { listAudit } from '../audit/audit.store.ts';
import { isoTime } from '../platform/clock.ts';
import { type Command, str, UsageError, withContext } from './command.ts';

export const auditCommands: Command[] = [
  {
    name: 'audit list',
    summary: 'Show the audit log of operator and developer actions, newest first.',
    usage: '[--action A] [--target ID] [--limit N] [--before ID]',
    options: {
      action: { type: 'string', description: 'only entries of this action, e.g. apps.create' },
      target: { type: 'string', description: 'only entries about this id' },
      limit: { type: 'string', description: 'at most N entries' },
      before: { type: 'string', description: 'entries older than this entry id (paging)' },
    },
    async run(cli, args) {
      const number = (name: string): number | undefined => {
        const v = str(args, name);
        if (v === undefined) return undefined;
        if (!/^[1-9]\d*$/.test(v)) throw new UsageError(`--${name} must be a positive whole number`);
        return Number(v);
      };
      const query = {
        action: str(args, 'action'),
        target: str(args, 'target'),
        limit: number('limit') ?? 50,
        before: number('before'),
      };
      return withContext(cli, async (ctx) => {
        const entries = listAudit(ctx.db, query).map((e) => ({ ...e, at: isoTime(e.at) }));
        const human = entries
          .map(
            (e) =>
              `${e.id}  ${e.at}  ${e.actor.padEnd(16)}  ${e.action.padEnd(24)}  ${e.target ?? '-'}` +
              (Object.keys(e.details).length ? `  ${JSON.stringify(e.details)}` : ''),
          )
          .join('\n');
        cli.print(human || 'no audit entries', { entries });
        return 0;
      });
    },
  },
];
