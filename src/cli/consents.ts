import { type ConsentRecord, createConsentLifecycleStore } from '../consent/lifecycle.store.ts';
import { revokeConsent } from '../consent/lifecycle.ts';
import { isoTime } from '../platform/clock.ts';
import type { Command } from './command.ts';
import { positional, str, withContext } from './command.ts';

/** The `--json` item of `consents list` (DESIGN.md §8), plus when it ends or ended and why. */
const item = (c: ConsentRecord) => ({
  consentId: c.id,
  applicationId: c.applicationId,
  environment: c.environment,
  personId: c.personId,
  scopes: c.scopes,
  purpose: c.purpose,
  status: c.status,
  grantedAt: isoTime(c.grantedAt),
  expiresAt: isoTime(c.expiresAt),
  lastUsedAt: c.lastUsedAt === null ? null : isoTime(c.lastUsedAt),
  endedAt: c.endedAt === null ? null : isoTime(c.endedAt),
  endReason: c.endReason,
});

export const consentsCommands: Command[] = [
  {
    name: 'consents list',
    summary: 'List consents, newest first, optionally of one application or one person.',
    usage: '[--app APP_ID] [--person PERSON_ID]',
    options: {
      app: { type: 'string', description: 'only consents given to this application' },
      person: { type: 'string', description: 'only consents of this person' },
    },
    async run(cli, args) {
      const consents = await withContext(cli, (ctx) =>
        createConsentLifecycleStore(ctx.db).list({
          applicationId: str(args, 'app'),
          personId: str(args, 'person'),
        }),
      );
      const rows = consents.map(
        (c) =>
          `${c.id}  ${c.status.padEnd(7)}  ${c.environment.padEnd(10)}  ${c.applicationId}  ${c.personId}  ${isoTime(c.grantedAt)}  ${c.scopes.join(' ')}${c.endReason ? `  (${c.endReason})` : ''}`,
      );
      cli.print(rows.length ? rows.join('\n') : 'no consents', { consents: consents.map(item) });
      return 0;
    },
  },
  {
    name: 'consents revoke',
    summary:
      'Revoke a consent: its access tokens stop working at once and consent.revoked is sent (reason revoked_by_operator).',
    usage: 'CONSENT_ID',
    async run(cli, args) {
      const consentId = positional(args, 0, 'CONSENT_ID');
      const result = await withContext(cli, (ctx) =>
        revokeConsent(ctx, consentId, 'revoked_by_operator', { actor: 'cli' }),
      );
      const c = result.consent;
      cli.print(result.changed ? `${consentId} revoked` : `${consentId} had already ended (${c.status})`, {
        consentId,
        status: c.status,
      });
      return 0;
    },
  },
];
