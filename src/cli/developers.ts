import { createApiKey, listApiKeys, revokeApiKey } from '../developer/api-key.store.ts';
import {
  createDeveloper,
  createInvitation,
  getDeveloper,
  listDevelopers,
} from '../developer/developer.store.ts';
import { isoTime } from '../platform/clock.ts';
import { type Command, positional, required, requiredEnvironment, str, withContext } from './command.ts';

export const developersCommands: Command[] = [
  {
    name: 'developers create',
    summary: 'Create a developer account (it gets a password by accepting an invitation).',
    usage: '--email E [--name N]',
    options: {
      email: { type: 'string', description: "the developer's email address (their sign-in)" },
      name: { type: 'string', description: 'display name' },
    },
    async run(cli, args) {
      const email = required(args, 'email');
      return withContext(cli, async (ctx) => {
        const r = createDeveloper(ctx.db, ctx.clock, { email, name: str(args, 'name'), actor: 'cli' });
        cli.print(`Created developer ${r.developerId} (${email.trim().toLowerCase()})`, r);
        return 0;
      });
    },
  },
  {
    name: 'developers invite',
    summary:
      'Invite a developer to the portal: prints a one-time invitation link (shown once, valid 7 days) to send them.',
    usage: '--email E',
    options: { email: { type: 'string', description: 'the address to invite' } },
    async run(cli, args) {
      const email = required(args, 'email');
      return withContext(cli, async (ctx) => {
        const inv = await createInvitation(ctx.db, ctx.clock, { email, actor: 'cli' });
        const url = `${ctx.config.server.developer_url}/invitations/${inv.token}`;
        cli.print(
          `Invitation for ${inv.email} (valid until ${isoTime(inv.expiresAt)}); send this link, it is shown only now:\n  ${url}`,
          {
            invitationId: inv.invitationId,
            email: inv.email,
            token: inv.token,
            url,
            expiresAt: isoTime(inv.expiresAt),
          },
        );
        return 0;
      });
    },
  },
  {
    name: 'developers list',
    summary: 'List developer accounts.',
    async run(cli) {
      return withContext(cli, async (ctx) => {
        const devs = listDevelopers(ctx.db).map((d) => ({
          developerId: d.developerId,
          email: d.email,
          name: d.name,
          status: d.status,
          activated: d.hasPassword,
          createdAt: isoTime(d.createdAt),
          activeKeys: listApiKeys(ctx.db, d.developerId).filter((k) => k.revokedAt === null).length,
        }));
        const human = devs
          .map(
            (d) =>
              `${d.developerId}  ${d.status.padEnd(8)}  ${(d.activated ? 'activated' : 'invited').padEnd(9)}  keys: ${d.activeKeys}  ${d.email}`,
          )
          .join('\n');
        cli.print(human || 'no developers', { developers: devs });
        return 0;
      });
    },
  },
  {
    name: 'developers keys create',
    summary: 'Issue a developer API key (dk_test_… or dk_live_…) for one environment. Shown once.',
    usage: 'DEVELOPER_ID --env sandbox|production [--label TEXT]',
    options: {
      env: { type: 'string', description: 'sandbox (dk_test_) or production (dk_live_)' },
      label: { type: 'string', description: 'a note saying what the key is for' },
    },
    async run(cli, args) {
      const developerId = positional(args, 0, 'DEVELOPER_ID');
      const environment = requiredEnvironment(args);
      return withContext(cli, async (ctx) => {
        getDeveloper(ctx.db, developerId);
        const r = await createApiKey(ctx.db, ctx.clock, developerId, environment, {
          label: str(args, 'label'),
          actor: 'cli',
        });
        cli.print(
          `New ${environment} API key ${r.keyId} for ${developerId}:\n  ${r.key}\nThe key is shown only now: store it in a secret manager.`,
          r,
        );
        return 0;
      });
    },
  },
  {
    name: 'developers keys list',
    summary: "List a developer's API keys (never the keys themselves).",
    usage: 'DEVELOPER_ID',
    async run(cli, args) {
      const developerId = positional(args, 0, 'DEVELOPER_ID');
      return withContext(cli, async (ctx) => {
        getDeveloper(ctx.db, developerId);
        const keys = listApiKeys(ctx.db, developerId).map((k) => ({
          keyId: k.keyId,
          environment: k.environment,
          label: k.label,
          createdAt: isoTime(k.createdAt),
          lastUsedAt: isoTime(k.lastUsedAt),
          revokedAt: isoTime(k.revokedAt),
        }));
        const human = keys
          .map(
            (k) =>
              `${k.keyId}  ${k.environment.padEnd(10)}  ${k.revokedAt ? `revoked ${k.revokedAt}` : 'active'}  last used ${k.lastUsedAt ?? 'never'}  ${k.label}`,
          )
          .join('\n');
        cli.print(human || 'no API keys', { keys });
        return 0;
      });
    },
  },
  {
    name: 'developers keys revoke',
    summary: 'Revoke a developer API key; it stops working at once.',
    usage: 'KEY_ID',
    async run(cli, args) {
      const keyId = positional(args, 0, 'KEY_ID');
      return withContext(cli, async (ctx) => {
        const k = revokeApiKey(ctx.db, ctx.clock, keyId, { actor: 'cli' });
        cli.print(`Revoked API key ${keyId}`, { keyId, revokedAt: isoTime(k.revokedAt) });
        return 0;
      });
    },
  },
];
