import { recordAudit } from '../audit/audit.store.ts';
import type { AppContext } from '../context.ts';
import { NotFoundError, ValidationError } from '../errors.ts';
import { isoTime, unix } from '../platform/clock.ts';
import { promotableAt, promote, publishNext } from './rotation.ts';

export interface KeySetSummary {
  active: string;
  next: string | null;
  /** Retired keys still published (their tokens may not have expired yet). */
  retired: string[];
}

export interface ManualRotation extends KeySetSummary {
  /** Whether the active key changed. */
  promoted: boolean;
  /** When it did not: the time (unix seconds) from which the next key may be promoted. */
  promotableAt: number | null;
}

export function keySetSummary(ctx: AppContext): KeySetSummary {
  const rows = ctx.keys.store.list();
  return {
    active: rows.find((r) => r.state === 'active')?.kid ?? '',
    next: rows.find((r) => r.state === 'next')?.kid ?? null,
    retired: rows.filter((r) => r.state === 'retired').map((r) => r.kid),
  };
}

/**
 * An operator's rotation. Without `immediate` the next key is promoted only once it has been published
 * for `publish_ahead` (relying parties have had time to fetch it); before that, a next key is published
 * if there is none and the active key stays. With `immediate` (a compromised key) the next key — or a
 * freshly made one when there is none — is promoted at once. Either way a fresh next key is left published.
 */
export async function rotateManually(ctx: AppContext, opts: { immediate: boolean }): Promise<ManualRotation> {
  const now = unix(ctx.clock);
  let next = ctx.keys.store.next();
  if (!next && opts.immediate) {
    await publishNext(ctx, now, 'cli');
    next = ctx.keys.store.next();
  }
  let promoted = false;
  if (next && (opts.immediate || now >= promotableAt(ctx, next))) {
    promoted =
      promote(ctx, next.kid, now, 'cli', {
        manual: true,
        early: now < promotableAt(ctx, next),
      }) !== undefined;
  }
  await publishNext(ctx, unix(ctx.clock), 'cli');
  const waiting = promoted ? undefined : ctx.keys.store.next();
  return { ...keySetSummary(ctx), promoted, promotableAt: waiting ? promotableAt(ctx, waiting) : null };
}

export interface Retirement {
  kid: string;
  /** "removed" when the key left the JWKS at once. */
  state: 'retired' | 'removed';
  /** Unix seconds; null once removed. */
  removeAfter: number | null;
  /** Set when retiring the active key promoted its successor. */
  promoted: string | null;
}

/**
 * Retires one key. The active key can be retired only when a next key has been published for
 * `publish_ahead`; that key is promoted in the same transaction, so there is never a moment without an
 * active key. A retired key stays published until its tokens have expired, unless `remove` (a compromised
 * key: tokens it signed stop verifying at once). A next key never signed anything, so it may go at once.
 */
export async function retireKey(
  ctx: AppContext,
  kid: string,
  opts: { remove: boolean },
): Promise<Retirement> {
  const now = unix(ctx.clock);
  const result = ctx.db.sql.transaction((): Retirement => {
    const row = ctx.keys.store.get(kid);
    if (!row) throw new NotFoundError(`no signing key with kid ${kid}`);
    let promoted: string | null = null;
    let removeAfter = row.remove_after;
    if (row.state === 'active') {
      const next = ctx.keys.store.next();
      if (!next || now < promotableAt(ctx, next)) {
        throw new ValidationError(
          next
            ? `the active key can be retired only after its successor ${next.kid} has been published for publish_ahead (from ${isoTime(promotableAt(ctx, next))}); for a compromised key run "verity keys rotate --now" first`
            : 'the active key can be retired only when a successor has been published: run "verity keys rotate" (or "verity keys rotate --now" for a compromised key)',
        );
      }
      const done = promote(ctx, next.kid, now, 'cli', { manual: true });
      promoted = done!.promoted;
      removeAfter = done!.removeAfter;
    } else if (row.state === 'next') {
      // It never signed a token, so nothing needs it to stay published.
      removeAfter = now;
      ctx.keys.store.setState(kid, 'retired', { retired_at: now, remove_after: removeAfter });
      recordAudit(ctx.db, ctx.clock, {
        actor: 'cli',
        action: 'signing_key.retire',
        target: kid,
        details: { removeAfter },
      });
    }
    if (opts.remove) {
      ctx.keys.store.delete(kid);
      recordAudit(ctx.db, ctx.clock, {
        actor: 'cli',
        action: 'signing_key.remove',
        target: kid,
        details: { early: true },
      });
      return { kid, state: 'removed', removeAfter: null, promoted };
    }
    return { kid, state: 'retired', removeAfter, promoted };
  });
  ctx.keys.invalidate();
  // Row first, then the file: the JWKS never lists a key whose file is gone.
  if (result.state === 'removed') await ctx.keys.files.remove(kid);
  return result;
}
