import { type AuditActor, recordAudit } from '../audit/audit.store.ts';
import type { AppContext } from '../context.ts';
import { exclusively, LOCKS } from '../db/exclusive.ts';
import { unix } from '../platform/clock.ts';
import type { KeyRow } from './key.store.ts';
import { SIGNING_ALGS } from './signing-algs.ts';
import { signingLifetime } from './signing-keys.ts';

/*
 * The keys of every algorithm form one set: a rotation publishes a next key of each algorithm at once
 * and promotes them together, so they share their publication, activation and removal times.
 *
 * Crash safety rests on three orderings, so the JWKS (built from rows + files) always holds the active keys:
 * - a key file is written (atomically) before its row is inserted, and a row is deleted before its file;
 *   a crash in between leaves at worst a file without a row, which `sweepOrphanFiles` removes later
 *   (the files of this database only: each names the database that wrote it);
 * - promotion (next → active, active → retired) is one transaction, so there is always exactly one
 *   active row per algorithm, and it is a row whose file exists;
 * - a key is only ever removed from the retired state, never straight from active.
 */

/** A file without a row younger than this may be a write whose row is about to be inserted. */
export const ORPHAN_GRACE_SECONDS = 10 * 60;
/**
 * A temporary key file younger than this may be a write in progress in another process; an atomic
 * write takes milliseconds, so one this old was left by a crash between writing and renaming.
 */
export const TEMPORARY_GRACE_SECONDS = 60 * 60;
/** Clock skew allowed to relying parties when they check `exp`. */
export const SKEW_SECONDS = 60;

export interface RotationReport {
  /** Kids of next keys published by this run. */
  published: string[];
  /** Kids promoted to active by this run, and the kids they replaced. */
  promoted: string[];
  retired: string[];
  /** Retired keys dropped from the JWKS (their tokens and proofs have all expired). */
  removed: string[];
  /** Key files that had no row (a crash between writing the file and inserting the row). */
  orphansRemoved: string[];
}

const seconds = (ms: number) => Math.ceil(ms / 1000);

export function timings(ctx: AppContext) {
  return {
    rotateEvery: seconds(ctx.config.keys.rotate_every),
    publishAhead: seconds(ctx.config.keys.publish_ahead),
    /** How long a retired key stays published at least (see `promote`). */
    keepRetired: signingLifetime(ctx.config) + SKEW_SECONDS,
  };
}

/** Whether `next` holds a next key of every algorithm: only a whole set is promoted. */
export const isWholeSet = (next: KeyRow[]) => SIGNING_ALGS.every((alg) => next.some((r) => r.alg === alg));

/** When the next keys may start signing: once the last of them has been published for `publish_ahead`. */
export const promotableAt = (ctx: AppContext, next: KeyRow[]) =>
  Math.max(...next.map((r) => r.created_at)) + timings(ctx).publishAhead;

/** When the active set was activated: its oldest member's time, so a key added by an upgrade waits for it. */
const activatedAt = (ctx: AppContext, now: number) =>
  Math.min(now, ...ctx.keys.store.actives().map((r) => r.activated_at ?? now));

/**
 * The scheduled rotation, safe to run at any time from any number of processes: drops retired keys
 * whose tokens have expired, promotes the next keys when the active ones are `rotate_every` old and the
 * next ones have been published for `publish_ahead`, publishes next keys `publish_ahead` before they
 * are needed (or completes a set that lacks one), and removes key files left without a row by a crash.
 */
export function rotateDue(ctx: AppContext): Promise<RotationReport> {
  // The time is read once the lock is held: a promotion dates its retirements from when it happens.
  return withKeysLock(ctx, () => rotateDueLocked(ctx, unix(ctx.clock)));
}

/**
 * Runs a change of the key set as the only one in progress, across every instance and CLI run on the
 * database: each starts from the set the previous one left, so concurrent rotations do not interleave.
 */
export const withKeysLock = <T>(ctx: AppContext, fn: () => Promise<T>): Promise<T> =>
  exclusively(ctx.db, LOCKS.signingKeys, fn);

async function rotateDueLocked(ctx: AppContext, now: number): Promise<RotationReport> {
  const t = timings(ctx);
  const report: RotationReport = {
    published: [],
    promoted: [],
    retired: [],
    removed: await removeExpired(ctx, now),
    orphansRemoved: [],
  };

  await ctx.keys.ensureActive();
  const next = ctx.keys.store.nextSet();
  if (isWholeSet(next) && now >= activatedAt(ctx, now) + t.rotateEvery && now >= promotableAt(ctx, next)) {
    const done = promote(ctx, next, now, 'system');
    if (done) Object.assign(report, { promoted: done.promoted, retired: done.retired });
  }

  const pending = ctx.keys.store.nextSet();
  if (
    !isWholeSet(pending) &&
    (pending.length > 0 || now >= activatedAt(ctx, now) + t.rotateEvery - t.publishAhead)
  ) {
    report.published = await publishNext(ctx, now, 'system');
  }

  report.orphansRemoved = await sweepOrphanFiles(ctx, now);
  return report;
}

/**
 * Publishes a next key of every algorithm that lacks one (file first, then its row); returns the kids
 * it published. Two processes may race: the loser removes its own file, which no row ever referenced.
 */
export async function publishNext(ctx: AppContext, now: number, actor: AuditActor): Promise<string[]> {
  const have = new Set(ctx.keys.store.nextSet().map((r) => r.alg));
  const published: string[] = [];
  for (const alg of SIGNING_ALGS.filter((a) => !have.has(a))) {
    const { kid } = await ctx.keys.files.generate(alg, now, ctx.keys.databaseId(), ctx.config.keys.rsa_bits);
    // Publication starts when the row commits, which is after the (slow) key generation.
    const publishedAt = Math.max(now, unix(ctx.clock));
    const won = ctx.db.sql.transaction(() => {
      if (ctx.keys.store.nextSet().some((r) => r.alg === alg)) return false;
      ctx.keys.store.insert({
        kid,
        alg,
        state: 'next',
        created_at: publishedAt,
        activated_at: null,
        retired_at: null,
        remove_after: null,
        longest_lifetime: signingLifetime(ctx.config),
      });
      recordAudit(ctx.db, ctx.clock, { actor, action: 'signing_key.publish', target: kid, details: { alg } });
      return true;
    });
    if (won) published.push(kid);
    else await ctx.keys.files.remove(kid);
  }
  ctx.keys.invalidate();
  return published;
}

/**
 * In one transaction: the `next` keys become active and the active key of each one's algorithm is
 * retired, kept published until every token and proof it signed has expired: for the longest lifetime
 * any start recorded on it (a lifetime lowered since does not shorten it), or this configuration's.
 * Returns undefined when another process changed the keys first.
 */
export function promote(
  ctx: AppContext,
  next: KeyRow[],
  now: number,
  actor: AuditActor,
  details: Record<string, unknown> = {},
): { promoted: string[]; retired: string[]; removeAfter: number } | undefined {
  const done = ctx.db.sql.transaction(() => {
    if (!next.length || next.some((r) => ctx.keys.store.get(r.kid)?.state !== 'next')) return undefined;
    const pairs = next.map((key) => ({ key, active: ctx.keys.store.active(key.alg) }));
    const lifetimes = pairs.map(({ active }) => (active?.longest_lifetime ?? 0) + SKEW_SECONDS);
    const removeAfter = now + Math.max(timings(ctx).keepRetired, ...lifetimes);
    const retired: string[] = [];
    for (const { key, active } of pairs) {
      // Retire first: the unique index refuses a second active row of an algorithm even mid-transaction.
      if (active) {
        ctx.keys.store.setState(active.kid, 'retired', { retired_at: now, remove_after: removeAfter });
        retired.push(active.kid);
      }
      ctx.keys.store.setState(key.kid, 'active', { activated_at: now });
      recordAudit(ctx.db, ctx.clock, {
        actor,
        action: 'signing_key.rotate',
        target: key.kid,
        details: { alg: key.alg, retired: active?.kid ?? null, removeAfter, ...details },
      });
    }
    return { promoted: next.map((r) => r.kid), retired, removeAfter };
  });
  ctx.keys.invalidate();
  return done;
}

/** Retired keys past `remove_after`: row first (the key leaves the JWKS), then the file. */
async function removeExpired(ctx: AppContext, now: number): Promise<string[]> {
  const removed = ctx.db.sql.transaction(() => {
    const rows = ctx.keys.store.removable(now);
    for (const row of rows) {
      ctx.keys.store.delete(row.kid);
      recordAudit(ctx.db, ctx.clock, { actor: 'system', action: 'signing_key.remove', target: row.kid });
    }
    return rows.map((r) => r.kid);
  });
  if (removed.length) ctx.keys.invalidate();
  for (const kid of removed) await ctx.keys.files.remove(kid);
  return removed;
}

/**
 * Key files this database wrote that have no row, older than the grace period: left by a crash before
 * the row was inserted or after it was deleted. A file another database wrote (a keys directory shared
 * by mistake, or a new database started on it) is never touched: it may hold that database's keys.
 */
export async function sweepOrphanFiles(ctx: AppContext, now: number): Promise<string[]> {
  const onDisk = await ctx.keys.files.list();
  // Rows are read after the listing: a file written and registered in between is then not an orphan.
  const known = new Set(ctx.keys.store.list().map((r) => r.kid));
  const own = ctx.keys.databaseId();
  const orphans = onDisk.filter(
    (f) => f.database === own && !known.has(f.kid) && now - f.createdAt >= ORPHAN_GRACE_SECONDS,
  );
  for (const f of orphans) await ctx.keys.files.remove(f.kid);
  return orphans.map((f) => f.kid);
}

/**
 * Temporary files of atomic key or instance-secret writes that a crash left unrenamed, older than the
 * grace period. They hold secret material nothing refers to, so they are deleted. Only names such a
 * write produces are candidates: whole key files and the secrets themselves are never touched. Returns
 * the names removed.
 */
export async function sweepTemporaryKeyFiles(
  ctx: AppContext,
  now: number = unix(ctx.clock),
): Promise<string[]> {
  const stale = (await ctx.keys.files.listTemporary()).filter(
    (f) => now - f.modifiedAt >= TEMPORARY_GRACE_SECONDS,
  );
  for (const f of stale) await ctx.keys.files.removeTemporary(f.name);
  return stale.map((f) => f.name);
}
