import type { AppContext } from '../context.ts';
import { sealedSecrets } from '../keys/instance-secrets.ts';
import { unix } from '../platform/clock.ts';
import * as store from './result.store.ts';

type Ctx = Pick<AppContext, 'db' | 'clock' | 'config'>;

/** Long enough for the redirect and a reload or two; a result nobody fetched in time is lost. */
const RESULT_TTL = 10 * 60;

const box = (ctx: Ctx) => sealedSecrets(ctx.config, 'portal results');
// Bound to its session and slot: a sealed result cannot be moved to another row.
const rowId = (sessionIdHash: string, slot: string) => `${sessionIdHash} ${slot}`;

/**
 * Keeps the result of a form (a secret just issued) for the page the form redirects to, so the secret
 * never travels in a URL and a reload of that page repeats nothing. A newer result in the slot replaces it.
 */
export async function keepResult(
  ctx: Ctx,
  sessionIdHash: string,
  slot: string,
  value: object,
): Promise<void> {
  store.putResult(ctx.db, {
    sessionIdHash,
    slot,
    sealed: await box(ctx).seal(rowId(sessionIdHash, slot), JSON.stringify(value)),
    expiresAt: unix(ctx.clock) + RESULT_TTL,
  });
}

/** The kept result, once: taking it deletes it, so a reload (or a concurrent load) gets undefined. */
export async function takeResult<T extends object>(
  ctx: Ctx,
  sessionIdHash: string,
  slot: string,
): Promise<T | undefined> {
  const sealed = store.takeResult(ctx.db, sessionIdHash, slot, unix(ctx.clock));
  return sealed === undefined
    ? undefined
    : (JSON.parse(await box(ctx).open(rowId(sessionIdHash, slot), sealed)) as T);
}

/** Drops results nobody fetched in time (they are already refused at read time). */
export function pruneResults(ctx: Ctx): number {
  return store.pruneResults(ctx.db, unix(ctx.clock));
}
