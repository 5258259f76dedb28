import { databaseTarget, openDb } from '../db/open.ts';
import { type KidsByAlg, keySetSummary, retireKey, rotateManually } from '../keys/key-admin.ts';
import { bindingMessage, keyMaterialOnDisk, verifyKeyBinding } from '../keys/key-binding.ts';
import { isoTime } from '../platform/clock.ts';
import { files } from '../platform/files.ts';
import { proc } from '../platform/process.ts';
import { type Command, positional, withContext } from './command.ts';

/** "RS256 kid, ES256 kid, …" */
const kids = (byAlg: KidsByAlg | null) =>
  Object.entries(byAlg ?? {})
    .map(([alg, kid]) => `${alg} ${kid}`)
    .join(', ') || 'none';

export const keysCommands: Command[] = [
  {
    name: 'keys check',
    summary:
      'Check that the keys directory and the configured secrets belong to the database: the instance secrets match ' +
      'their recorded check values and every active or next signing key file holds its key. Changes nothing; ' +
      'exits 1 on a mismatch (the server would refuse to start).',
    async run(cli) {
      const config = await cli.loadConfig();
      // The database alone, not a full context: a context would refuse (or, for a new database, generate).
      if (!config.database.url && !(await files.exists(config.database.path)))
        throw new Error(`no database at ${config.database.path}`);
      const db = await openDb(databaseTarget(config));
      try {
        const r = await verifyKeyBinding(db, keyMaterialOnDisk(config));
        const ok = r.problems.length === 0;
        const human = ok
          ? `the key material in ${config.keys.dir} belongs to ${config.database.path}` +
            r.warnings.map((w) => `\nwarning: ${w}`).join('')
          : bindingMessage(config.keys.dir, r.problems);
        if (ok || cli.json) cli.print(human, { ok, problems: r.problems, warnings: r.warnings });
        else proc.stderr(`${human}\n`);
        return ok ? 0 : 1;
      } finally {
        db.close();
      }
    },
  },
  {
    name: 'keys list',
    summary: 'List the signing keys with their algorithm, state (next, active, retired) and times.',
    async run(cli) {
      return withContext(cli, async (ctx) => {
        const keys = ctx.keys.store.list().map((r) => ({
          kid: r.kid,
          alg: r.alg,
          state: r.state,
          createdAt: isoTime(r.created_at),
          activatedAt: isoTime(r.activated_at),
          retiredAt: isoTime(r.retired_at),
          removeAfter: isoTime(r.remove_after),
        }));
        const human = keys
          .map(
            (k) =>
              `${k.kid}  ${k.alg.padEnd(5)}  ${k.state.padEnd(7)}  created ${k.createdAt}` +
              (k.activatedAt && k.state !== 'next' ? `  activated ${k.activatedAt}` : '') +
              (k.retiredAt ? `  retired ${k.retiredAt}` : '') +
              (k.removeAfter ? `  published until ${k.removeAfter}` : ''),
          )
          .join('\n');
        cli.print(human || 'no signing keys', { keys });
        return 0;
      });
    },
  },
  {
    name: 'keys rotate',
    summary:
      'Rotate the signing keys (one per algorithm: RS256, ES256, EdDSA, rotated together). The next keys are ' +
      'promoted only once they have been published for [keys] publish_ahead; until then the next keys missing ' +
      'are published and the active keys stay: run this again later. --now promotes at once (a compromised key; ' +
      'follow with "verity keys retire OLD_KID --remove"). Fresh next keys are always left published.',
    usage: '[--now]',
    options: { now: { type: 'boolean', description: 'promote a new key at once (after a compromise)' } },
    async run(cli, args) {
      return withContext(cli, async (ctx) => {
        const r = await rotateManually(ctx, { immediate: args.values.now === true });
        const human = r.promoted
          ? `active keys are now ${kids(r.active)}; next keys ${kids(r.next)} published`
          : `active keys unchanged (${kids(r.active)}); next keys ${kids(r.next)} can be promoted from ${isoTime(r.promotableAt)} (run again then, or use --now)`;
        cli.print(human, {
          active: r.active,
          next: r.next,
          retired: r.retired,
          promoted: r.promoted,
          promotableAt: isoTime(r.promotableAt),
        });
        return 0;
      });
    },
  },
  {
    name: 'keys retire',
    summary:
      'Retire a signing key. An active key needs next keys published for [keys] publish_ahead, which are promoted ' +
      'together in the same step. A retired key stays in the JWKS until its tokens have expired; --remove drops it ' +
      'at once (a compromised key: tokens it signed stop verifying).',
    usage: 'KID [--remove]',
    options: { remove: { type: 'boolean', description: 'drop it from the JWKS at once' } },
    async run(cli, args) {
      const kid = positional(args, 0, 'KID');
      return withContext(cli, async (ctx) => {
        const r = await retireKey(ctx, kid, { remove: args.values.remove === true });
        const set = keySetSummary(ctx);
        const human =
          (r.state === 'removed'
            ? `key ${kid} removed from the JWKS`
            : `key ${kid} retired; published until ${isoTime(r.removeAfter)}`) +
          (r.promoted ? `\nactive keys are now ${kids(set.active)}` : '');
        cli.print(human, {
          kid,
          state: r.state,
          removeAfter: isoTime(r.removeAfter),
          active: set.active,
          next: set.next,
          retired: set.retired,
        });
        return 0;
      });
    },
  },
];
