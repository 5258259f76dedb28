import { type AuditActor, recordAudit } from '../audit/audit.store.ts';
import type { AppContext } from '../context.ts';
import { sealedSecrets } from '../keys/instance-secrets.ts';
import { unix } from '../platform/clock.ts';
import { pruneSecretReveals, revealExpiry, takeSecretReveal } from './secret-reveal.store.ts';

type Ctx = Pick<AppContext, 'db' | 'clock' | 'config'>;

/** Until when the production secret issued at approval can be revealed, if it still can. */
export function productionSecretRevealableUntil(ctx: Ctx, applicationId: string): number | undefined {
  return revealExpiry(ctx.db, applicationId, unix(ctx.clock));
}

/**
 * The production client secret issued at approval, once: taking it deletes it, so a second reveal,
 * a concurrent one, or one after 24 hours gets undefined.
 */
export async function revealProductionSecret(
  ctx: Ctx,
  applicationId: string,
  opts: { actor: AuditActor },
): Promise<string | undefined> {
  const sealed = ctx.db.sql.transaction(() => {
    const taken = takeSecretReveal(ctx.db, applicationId, unix(ctx.clock));
    if (taken)
      recordAudit(ctx.db, ctx.clock, {
        actor: opts.actor,
        action: 'client_secret.reveal',
        target: applicationId,
        details: { environment: 'production' },
      });
    return taken;
  });
  return sealed && sealedSecrets(ctx.config, 'client secrets').open(applicationId, sealed);
}

/** Drops sealed secrets nobody revealed in time (they are already refused at read time). */
export function pruneProductionSecrets(ctx: Ctx): number {
  return pruneSecretReveals(ctx.db, unix(ctx.clock));
}
