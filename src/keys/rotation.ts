import { type AuditActor, recordAudit } from '../audit/audit.store.ts';
import type { AppContext } from '../context.ts';
import { unix } from '../platform/clock.ts';
import type { KeyRow } from './key.store.ts';

/*
 * Crash safety rests on three orderings, so the JWKS (built from rows + files) always holds the active key:
 * - a key file is written (atomically) before its row is inserted, and a row is deleted before its file;
 *   a crash in between leaves at worst a file without a row, which `sweepOrphanFiles` removes later;
 * - promotion (next → active, active → retired) is one transaction, so there is always exactly one
 *   active row, and it is a row whose file exists;
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
  /** Kid of a next key published by this run. */
  published?: string;
  /** Kid promoted to active by this run, and the kid it replaced. */
  promoted?: string;
  retired?: string;
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
    /** How long a retired key stays published: every token and document proof it signed has expired by then. */
    keepRetired: seconds(Math.max(ctx.config.oauth.token_ttl, ctx.config.assurance.proof_ttl)) + SKEW_SECONDS,
  };
}

/** When the next key may start signing: once it has been published for `publish_ahead`. */
export const promotableAt = (ctx: AppContext, next: KeyRow) => next.created_at + timings(ctx).publishAhead;

/**
 * The scheduled rotation, safe to run at any time from any number of processes: drops retired keys
 * whose tokens have expired, promotes the next key when the active one is `rotate_every` old and the
 * next one has been published for `publish_ahead`, publishes a next key `publish_ahead` before it is
 * needed, and removes key files left without a row by a crash.
 */
export async function rotateDue(ctx: AppContext, at: Date = ctx.clock.now()): Promise<RotationReport> {
  const now = Math.floor(at.getTime() / 1000);
  const t = timings(ctx);
  const report: RotationReport = { removed: await removeExpired(ctx, now), orphansRemoved: [] };

  if (!ctx.keys.store.active()) await ctx.keys.ensureActive();
  const active = ctx.keys.store.active()!;
  const next = ctx.keys.store.next();
  if (
    next &&
    active.activated_at !== null &&
    now >= active.activated_at + t.rotateEvery &&
    now >= promotableAt(ctx, next)
  ) {
    const done = promote(ctx, next.kid, now, 'system');
    if (done) Object.assign(report, { promoted: done.promoted, retired: done.retired });
  }

  const current = ctx.keys.store.active()!;
  if (!ctx.keys.store.next() && now >= (current.activated_at ?? now) + t.rotateEvery - t.publishAhead) {
    report.published = await publishNext(ctx, now, 'system');
  }

  report.orphansRemoved = await sweepOrphanFiles(ctx, now);
  return report;
}

/**
 * Publishes a next key (file first, then its row) unless one already exists; returns the next kid.
 * Two processes may race: the loser removes its own file, which no row ever referenced.
 */
export async function publishNext(ctx: AppContext, now: number, actor: AuditActor): Promise<string> {
  const existing = ctx.keys.store.next();
  if (existing) return existing.kid;
  const { kid } = await ctx.keys.files.generate(ctx.config.keys.rsa_bits, now);
  // Publication starts when the row commits, which is after the (slow) key generation.
  const publishedAt = Math.max(now, unix(ctx.clock));
  const winner = ctx.db.sql.transaction(() => {
    const other = ctx.keys.store.next();
    if (other) return other.kid;
    ctx.keys.store.insert({
      kid,
      state: 'next',
      created_at: publishedAt,
      activated_at: null,
      retired_at: null,
      remove_after: null,
    });
    recordAudit(ctx.db, ctx.clock, { actor, action: 'signing_key.publish', target: kid });
    return kid;
  });
  if (winner !== kid) await ctx.keys.files.remove(kid);
  ctx.keys.invalidate();
  return winner;
}

/**
 * In one transaction: `kid` (a next key) becomes active and the active key is retired, kept published
 * until every token and proof it signed has expired. Returns undefined when another process changed the keys first.
 */
export function promote(
  ctx: AppContext,
  kid: string,
  now: number,
  actor: AuditActor,
  details: Record<string, unknown> = {},
): { promoted: string; retired: string; removeAfter: number } | undefined {
  const removeAfter = now + timings(ctx).keepRetired;
  const done = ctx.db.sql.transaction(() => {
    const next = ctx.keys.store.get(kid);
    const active = ctx.keys.store.active();
    if (next?.state !== 'next' || !active) return undefined;
    // Retire first: the unique index on the active state refuses a second active row even mid-transaction.
    ctx.keys.store.setState(active.kid, 'retired', { retired_at: now, remove_after: removeAfter });
    ctx.keys.store.setState(next.kid, 'active', { activated_at: now });
    recordAudit(ctx.db, ctx.clock, {
      actor,
      action: 'signing_key.rotate',
      target: next.kid,
      details: { retired: active.kid, removeAfter, ...details },
    });
    return { promoted: next.kid, retired: active.kid, removeAfter };
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

/** Key files without a row, older than the grace period: left by a crash before the row was inserted. */
export async function sweepOrphanFiles(ctx: AppContext, now: number): Promise<string[]> {
  const onDisk = await ctx.keys.files.list();
  // Rows are read after the listing: a file written and registered in between is then not an orphan.
  const known = new Set(ctx.keys.store.list().map((r) => r.kid));
  const orphans = onDisk.filter((f) => !known.has(f.kid) && now - f.createdAt >= ORPHAN_GRACE_SECONDS);
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
