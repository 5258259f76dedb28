import { recordAudit } from '../audit/audit.store.ts';
import type { AppContext } from '../context.ts';
import { NotFoundError, ValidationError } from '../errors.ts';
import { isoTime, unix } from '../platform/clock.ts';
import type { KeyRow } from './key.store.ts';
import { isWholeSet, promotableAt, promote, publishNext, withKeysLock } from './rotation.ts';
import type { SigningAlg } from './signing-algs.ts';

/** Kids by algorithm. */
export type KidsByAlg = Partial<Record<SigningAlg, string>>;

export interface KeySetSummary {
  active: KidsByAlg;
  /** Null when no next key is published. */
  next: KidsByAlg | null;
  /** Retired keys still published (their tokens may not have expired yet). */
  retired: string[];
}

export interface ManualRotation extends KeySetSummary {
  /** Whether the active keys changed. */
  promoted: boolean;
  /** When they did not: the time (unix seconds) from which the next keys may be promoted. */
  promotableAt: number | null;
}

const byAlg = (rows: KeyRow[]): KidsByAlg => Object.fromEntries(rows.map((r) => [r.alg, r.kid]));

export function keySetSummary(ctx: AppContext): KeySetSummary {
  const rows = ctx.keys.store.list();
  const next = ctx.keys.store.nextSet();
  return {
    active: byAlg(rows.filter((r) => r.state === 'active')),
    next: next.length ? byAlg(next) : null,
    retired: rows.filter((r) => r.state === 'retired').map((r) => r.kid),
  };
}

/**
 * An operator's rotation of the whole key set. Without `immediate` the next keys are promoted only
 * once they have been published for `publish_ahead` (relying parties have had time to fetch them);
 * before that, the next keys missing are published and the active keys stay. With `immediate` (a
 * compromised key) the next keys — freshly made where missing — are promoted at once. Either way a
 * fresh next key of each algorithm is left published.
 */
export function rotateManually(ctx: AppContext, opts: { immediate: boolean }): Promise<ManualRotation> {
  return withKeysLock(ctx, async () => {
    const now = unix(ctx.clock);
    let next = ctx.keys.store.nextSet();
    if (!isWholeSet(next) && opts.immediate) {
      await publishNext(ctx, now, 'cli');
      next = ctx.keys.store.nextSet();
    }
    let promoted = false;
    if (isWholeSet(next) && (opts.immediate || now >= promotableAt(ctx, next))) {
      promoted =
        promote(ctx, next, now, 'cli', {
          manual: true,
          early: now < promotableAt(ctx, next),
        }) !== undefined;
    }
    await publishNext(ctx, unix(ctx.clock), 'cli');
    const waiting = promoted ? [] : ctx.keys.store.nextSet();
    return {
      ...keySetSummary(ctx),
      promoted,
      promotableAt: waiting.length ? promotableAt(ctx, waiting) : null,
    };
  });
}

export interface Retirement {
  kid: string;
  /** "removed" when the key left the JWKS at once. */
  state: 'retired' | 'removed';
  /** Unix seconds; null once removed. */
  removeAfter: number | null;
  /** Set when retiring an active key promoted the next keys: the successor of the same algorithm. */
  promoted: string | null;
}

/**
 * Retires one key. An active key can be retired only when the next keys have been published for
 * `publish_ahead`; the whole set is promoted in the same transaction (the keys rotate together), so
 * there is never a moment without an active key. A retired key stays published until its tokens have
 * expired, unless `remove` (a compromised key: tokens it signed stop verifying at once). A next key
 * never signed anything, so it may go at once.
 */
export function retireKey(ctx: AppContext, kid: string, opts: { remove: boolean }): Promise<Retirement> {
  return withKeysLock(ctx, async () => {
    const now = unix(ctx.clock);
    const result = ctx.db.sql.transaction((): Retirement => {
      const row = ctx.keys.store.get(kid);
      if (!row) throw new NotFoundError(`no signing key with kid ${kid}`);
      let promoted: string | null = null;
      let removeAfter = row.remove_after;
      if (row.state === 'active') {
        const next = ctx.keys.store.nextSet();
        if (!isWholeSet(next) || now < promotableAt(ctx, next)) {
          throw new ValidationError(
            isWholeSet(next)
              ? `the active key can be retired only after the next keys (${next.map((r) => r.kid).join(', ')}) have been published for publish_ahead (from ${isoTime(promotableAt(ctx, next))}); for a compromised key run "verity keys rotate --now" first`
              : 'the active key can be retired only when a successor of every algorithm has been published: run "verity keys rotate" (or "verity keys rotate --now" for a compromised key)',
          );
        }
        const done = promote(ctx, next, now, 'cli', { manual: true });
        promoted = next.find((r) => r.alg === row.alg)!.kid;
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
  });
}
