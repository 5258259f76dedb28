import { securityEvent } from '../audit/security-events.ts';
import { type AppContext, slot } from '../context.ts';
import { randomId } from '../crypto/tokens.ts';
import type { Db } from '../db/open.ts';
import type { Environment } from '../environment.ts';
import { subjectFor } from '../keys/pairwise.ts';
import { type Clock, isoTime, unix } from '../platform/clock.ts';
import { createSessionStore } from '../web/session.store.ts';
import { enqueueEvent } from '../webhooks/outbox.store.ts';
import { type Consent, type ConsentKey, createConsentStore, markConsentUsedAt } from './consent.store.ts';

/** An identical active consent (same environment, person, purpose and scope set), if one exists. */
export function findActiveConsent(db: Db, clock: Clock, key: ConsentKey): Consent | undefined {
  return createConsentStore(db).findActive(key, unix(clock));
}

/** Records that an existing consent allowed an authorization without showing the screen again. */
export function markConsentUsed(db: Db, clock: Clock, consentId: string): void {
  createConsentStore(db).markUsed(consentId, unix(clock));
}

/** The consents this process has marked used in the current second. */
const MARKED = slot(() => ({ second: 0, ids: new Set<string>() }));

/**
 * Records a use of the consent by one of its access tokens. The column holds seconds; a consent this
 * process already marked in this second is not written again: even an UPDATE that changes nothing is
 * a write transaction, and on PostgreSQL a round trip, on every UserInfo request.
 */
export function recordTokenUse(ctx: AppContext, consentId: string): void {
  const now = unix(ctx.clock);
  const marked = ctx.caches.get(MARKED);
  if (marked.second !== now) {
    marked.second = now;
    marked.ids.clear();
  }
  if (marked.ids.has(consentId)) return;
  markConsentUsedAt(ctx.db, consentId, now);
  marked.ids.add(consentId);
}

export interface GrantInput extends ConsentKey {
  applicationId: string;
  environment: Environment;
}

/**
 * The person allowed the application this purpose and scope set: a consent valid for
 * `[consent] max_age` (a persona's, held by a browser session, until that session's deadline), and
 * its `consent.granted` event (with the pairwise `sub`) in the same transaction, so a webhook is
 * never sent for a consent that was not stored, nor the reverse. An
 * identical consent in force (asked again with prompt=consent, or allowed in two tabs at once) is
 * renewed rather than duplicated: same id, new grant time and expiry, `consent.granted` again.
 */
export async function grantConsent(ctx: AppContext, input: GrantInput): Promise<Consent> {
  const sub = await subjectFor(ctx, input.applicationId, input.personId);
  const now = unix(ctx.clock);
  const maxAge = now + Math.floor(ctx.config.consent.max_age / 1000);
  // A sandbox persona's consent belongs to the browser session (consent/holder.ts), so it ends with
  // it: one from each anonymous run would otherwise stay a year, no longer reachable by anyone.
  const expiresAt = input.sessionIdHash
    ? Math.min(
        maxAge,
        createSessionStore(ctx.db).deadline(input.sessionIdHash) ??
          now + Math.floor(ctx.config.identity.session_absolute / 1000),
      )
    : maxAge;
  const store = createConsentStore(ctx.db);
  const insert = (): Consent => {
    const c: Consent = {
      id: randomId('cns_'),
      applicationId: input.applicationId,
      environmentId: input.environmentId,
      personId: input.personId,
      sessionIdHash: input.sessionIdHash,
      scopes: [...new Set(input.scopes)].sort(),
      purpose: input.purpose,
      status: 'active',
      grantedAt: now,
      expiresAt,
      lastUsedAt: now,
      endedAt: null,
      endReason: null,
    };
    store.insert(c);
    return c;
  };
  const consent = ctx.db.sql.transaction(() => {
    const c = store.renewActive(input, now, expiresAt) ?? insert();
    enqueueEvent(ctx, {
      type: 'consent.granted',
      applicationId: input.applicationId,
      environment: input.environment,
      data: {
        consentId: c.id,
        applicationId: input.applicationId,
        environment: input.environment,
        sub,
        scopes: c.scopes,
        purpose: c.purpose,
        at: isoTime(now),
      },
    });
    return c;
  });
  securityEvent(ctx, 'consent.granted', {
    consentId: consent.id,
    applicationId: input.applicationId,
    environment: input.environment,
    personId: input.personId,
  });
  return consent;
}
