import { type AuditActor, recordAudit } from '../audit/audit.store.ts';
import { securityEvent } from '../audit/security-events.ts';
import type { AppContext } from '../context.ts';
import { NotFoundError } from '../errors.ts';
import { subjectFor } from '../keys/pairwise.ts';
import { isoTime, unix } from '../platform/clock.ts';
import { enqueueEvent } from '../webhooks/outbox.store.ts';
import type { ConsentEndReason, ConsentHolder } from './consent.store.ts';
import { type ConsentRecord, createConsentLifecycleStore } from './lifecycle.store.ts';

type Store = ReturnType<typeof createConsentLifecycleStore>;

interface EndOptions {
  /** Recorded in the audit log when a person or an operator ended the consent. */
  actor?: AuditActor;
  auditAction?: string;
  /**
   * A change that must commit with the consents' end (disabling their person, resetting their
   * developer's password): made in the first round's transaction (again if that transaction runs
   * again), not in the rounds after it.
   */
  together?: () => void;
}

/**
 * Ends the consents `pick` selects, each in the same transaction as the revocation of its access tokens
 * and its `consent.revoked` event (DESIGN.md §5), so an application is told exactly when access ended.
 * The pairwise `sub` of the event is computed before the transaction (it is asynchronous); `pick` runs
 * again inside it, and a consent granted meanwhile for an application without a computed `sub` sends
 * the loop round once more.
 */
async function endConsents(
  ctx: AppContext,
  pick: (store: Store, now: number) => ConsentRecord[],
  status: 'revoked' | 'expired',
  reason: ConsentEndReason,
  opts: EndOptions = {},
): Promise<ConsentRecord[]> {
  const store = createConsentLifecycleStore(ctx.db);
  const subs = new Map<string, string>();
  const ended: ConsentRecord[] = [];
  for (let round = 0; round < 5; round++) {
    const now = unix(ctx.clock);
    for (const c of pick(store, now)) {
      const key = `${c.applicationId}:${c.personId}`;
      if (!subs.has(key)) subs.set(key, await subjectFor(ctx, c.applicationId, c.personId));
    }
    // Collected per attempt: a transaction that loses to a concurrent one runs again from the start.
    const { missing: incomplete, endedNow } = ctx.db.sql.transaction(() => {
      let missing = false;
      const endedNow: ConsentRecord[] = [];
      if (round === 0) opts.together?.();
      for (const c of pick(store, now)) {
        const sub = subs.get(`${c.applicationId}:${c.personId}`);
        if (sub === undefined) {
          missing = true;
          continue;
        }
        // Its access tokens are revoked by a trigger (migrations/0002_consent_end_revokes_tokens.sql).
        if (!store.end(c.id, status, reason, now)) continue;
        enqueueEvent(ctx, {
          type: 'consent.revoked',
          applicationId: c.applicationId,
          environment: c.environment,
          data: {
            consentId: c.id,
            applicationId: c.applicationId,
            environment: c.environment,
            sub,
            scopes: c.scopes,
            purpose: c.purpose,
            at: isoTime(now),
            reason,
          },
        });
        if (opts.actor)
          recordAudit(ctx.db, ctx.clock, {
            actor: opts.actor,
            action: opts.auditAction ?? 'consent.revoke',
            target: c.id,
            details: { applicationId: c.applicationId, personId: c.personId, reason },
          });
        endedNow.push({ ...c, status, endReason: reason, endedAt: now });
      }
      return { missing, endedNow };
    });
    ended.push(...endedNow);
    if (!incomplete) break;
  }
  for (const c of ended)
    securityEvent(ctx, 'consent.revoked', {
      consentId: c.id,
      applicationId: c.applicationId,
      environment: c.environment,
      personId: c.personId,
      reason,
    });
  return ended;
}

/**
 * Revokes one consent (by the person from the account page, the developer of a sandbox application, or
 * an operator). Idempotent: a consent that already ended is returned as it is, with no second event.
 */
export async function revokeConsent(
  ctx: AppContext,
  consentId: string,
  reason: 'revoked_by_person' | 'revoked_by_developer' | 'revoked_by_operator',
  opts: EndOptions & { within?: (c: ConsentRecord) => boolean } = {},
): Promise<{ consent: ConsentRecord; changed: boolean }> {
  const store = createConsentLifecycleStore(ctx.db);
  const existing = store.get(consentId);
  // A consent outside what the caller may end is as unknown as a missing one.
  if (!existing || (opts.within && !opts.within(existing)))
    throw new NotFoundError(`no consent ${consentId}`);
  const ended = await endConsents(
    ctx,
    (s) => {
      const c = s.get(consentId);
      return c?.status === 'active' ? [c] : [];
    },
    'revoked',
    reason,
    opts,
  );
  return { consent: ended[0] ?? store.get(consentId)!, changed: ended.length > 0 };
}

/** The sandbox consents in force of an application, from every browser, for its developer. */
export function sandboxConsentsOf(ctx: AppContext, applicationId: string) {
  return createConsentLifecycleStore(ctx.db).activeSandboxForApplication(applicationId, unix(ctx.clock));
}

/** A developer revokes a sandbox consent given to their application (the caller checked ownership). */
export function revokeSandboxConsent(
  ctx: AppContext,
  applicationId: string,
  consentId: string,
  opts: EndOptions = {},
): Promise<{ consent: ConsentRecord; changed: boolean }> {
  return revokeConsent(ctx, consentId, 'revoked_by_developer', {
    ...opts,
    within: (c) => c.applicationId === applicationId && c.environment === 'sandbox',
  });
}

/** Disconnects an application from a holder: every active consent they gave it ends, reason `disconnected`. */
export function disconnectApplication(
  ctx: AppContext,
  holder: ConsentHolder,
  applicationId: string,
  opts: EndOptions = {},
): Promise<ConsentRecord[]> {
  return endConsents(
    ctx,
    (s) => s.activeForHolderAndApplication(holder, applicationId),
    'revoked',
    'disconnected',
    { auditAction: 'application.disconnect', ...opts },
  );
}

/** Ends every consent of a person (an operator disabling the person), reason `revoked_by_operator`. */
export function revokePersonConsents(
  ctx: AppContext,
  personId: string,
  opts: EndOptions = {},
): Promise<ConsentRecord[]> {
  return endConsents(ctx, (s) => s.allActiveForPerson(personId), 'revoked', 'revoked_by_operator', opts);
}

/**
 * Ends every consent given to the developer's applications (an account taken back from whoever made
 * it), reason `revoked_by_developer`.
 */
export function revokeOwnerConsents(
  ctx: AppContext,
  developerId: string,
  opts: EndOptions = {},
): Promise<ConsentRecord[]> {
  return endConsents(ctx, (s) => s.allActiveForOwner(developerId), 'revoked', 'revoked_by_developer', opts);
}

const EXPIRY_BATCH = 500;

/**
 * Marks consents past `[consent] max_age` expired, revoking their tokens and emitting `consent.revoked`
 * with reason `expired`. Access already stops at the expiry instant (checked at every use); this makes
 * it visible to the application and the person. Returns how many consents expired.
 */
export async function expireConsents(ctx: AppContext): Promise<number> {
  let total = 0;
  for (;;) {
    const ended = await endConsents(ctx, (s, now) => s.due(now, EXPIRY_BATCH), 'expired', 'expired');
    total += ended.length;
    if (ended.length < EXPIRY_BATCH) return total;
  }
}
