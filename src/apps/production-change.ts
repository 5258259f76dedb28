import { type AuditActor, recordAudit } from '../audit/audit.store.ts';
import { RESTRICTED_SCOPES } from '../capabilities/scopes.ts';
import { randomId } from '../crypto/tokens.ts';
import type { Db } from '../db/open.ts';
import { type Clock, unix } from '../platform/clock.ts';
import {
  type EnvironmentView,
  findPendingReview,
  insertReview,
  type ReviewView,
  setReviewFields,
} from './application.store.ts';
import { ruleViolation } from './rule-error.ts';
import { productionWebOrigins } from './web-origin-rules.ts';

const FULL_NUMBER = RESTRICTED_SCOPES[0]!;
const MAX_TEXT = 2000;

/**
 * What production serves: the settings that decide which data may reach which callback, and which
 * pages may read it from a browser.
 */
export interface ProductionSettings {
  scopes: string[];
  redirectUris: string[];
  webOrigins: string[];
  postLogoutRedirectUris: string[];
  documentTypes: string[];
  documentCountries: string[];
}
export const SETTING_KEYS = [
  'scopes',
  'redirectUris',
  'webOrigins',
  'postLogoutRedirectUris',
  'documentTypes',
  'documentCountries',
] as const;
type Key = (typeof SETTING_KEYS)[number];

/**
 * A developer's edit of production, split in two: what narrows applies at once (`now`), and every
 * setting that gains an element waits for review with the whole set asked for (`review`). A reorder
 * changes neither. A narrowing that would leave no scope or no redirect URI waits with the rest, so
 * production never serves an empty set.
 */
export function splitProductionEdit(
  current: ProductionSettings,
  desired: Partial<ProductionSettings>,
): { now: Partial<ProductionSettings>; review: Partial<ProductionSettings> } {
  const now: Partial<ProductionSettings> = {};
  const review: Partial<ProductionSettings> = {};
  for (const key of SETTING_KEYS) {
    const want = desired[key];
    if (!want) continue;
    const kept = current[key].filter((x) => want.includes(x));
    const widens = want.some((x) => !current[key].includes(x));
    const mustKeepOne = key === 'scopes' || key === 'redirectUris';
    if (widens) review[key] = want;
    if (kept.length < current[key].length && !(mustKeepOne && kept.length === 0)) now[key] = kept;
  }
  return { now, review };
}

export interface SetChange {
  added: string[];
  removed: string[];
}
export type ReviewChanges = Record<Key, SetChange>;

/**
 * What approving `review` would change in production as it is now (nothing yet for a first review,
 * which takes the sandbox's redirect and post-logout URIs, document policy and those of its web
 * origins that production's rules accept).
 */
export function reviewChanges(
  review: ReviewView,
  production: EnvironmentView | undefined,
  sandbox: EnvironmentView,
): ReviewChanges {
  const out = {} as ReviewChanges;
  for (const key of SETTING_KEYS) {
    const base = production?.[key] ?? [];
    const asked =
      review[key] ??
      production?.[key] ??
      (key === 'webOrigins' ? productionWebOrigins(sandbox[key]) : sandbox[key]);
    out[key] = {
      added: asked.filter((x) => !base.includes(x)),
      removed: base.filter((x) => !asked.includes(x)),
    };
  }
  return out;
}

function optionalText(path: string, value: string | undefined): string | undefined {
  const v = value?.trim();
  if (v && v.length > MAX_TEXT)
    throw ruleViolation(path, `the text must be at most ${MAX_TEXT} characters long`);
  return v || undefined;
}

/**
 * Files the widening part of a developer's production edit as the application's pending review. One
 * review is pending at a time, and the latest edit states everything the developer wants: it withdraws
 * the pending review and files a new one in its place (keeping its justifications unless new ones are
 * given), so a review id always names the same settings; an edit that no longer widens anything only
 * withdraws it. Call inside the edit's transaction.
 */
export function fileProductionChange(
  db: Db,
  clock: Clock,
  input: {
    applicationId: string;
    production: ProductionSettings;
    review: Partial<ProductionSettings>;
    justification?: string;
    fullNumberJustification?: string;
    actor: AuditActor;
  },
): ReviewView['reviewId'] | undefined {
  if (Object.keys(input.review).length === 0) {
    withdrawPendingReview(db, clock, input.applicationId, input.actor);
    return undefined;
  }
  const t = unix(clock);
  const existing = findPendingReview(db, input.applicationId);
  if (existing) setReviewFields(db, existing.id, { status: 'withdrawn', decidedAt: t });
  const scopes = input.review.scopes ?? input.production.scopes;
  const addsFullNumber = scopes.includes(FULL_NUMBER) && !input.production.scopes.includes(FULL_NUMBER);
  const fullNumberJustification = addsFullNumber
    ? (optionalText('fullNumberJustification', input.fullNumberJustification) ??
      existing?.fullNumberJustification ??
      undefined)
    : undefined;
  if (addsFullNumber && !fullNumberJustification)
    throw ruleViolation(
      'fullNumberJustification',
      `a justification for ${FULL_NUMBER} (why the full document number is needed) is required`,
    );
  const json = (key: Exclude<Key, 'scopes'>) => {
    const v = input.review[key];
    return v ? JSON.stringify(v) : null;
  };
  const settings = {
    scopes: JSON.stringify(scopes),
    redirectUris: json('redirectUris'),
    webOrigins: json('webOrigins'),
    postLogoutRedirectUris: json('postLogoutRedirectUris'),
    documentTypes: json('documentTypes'),
    documentCountries: json('documentCountries'),
    fullNumberJustification: fullNumberJustification ?? null,
    justification: optionalText('justification', input.justification) ?? existing?.justification ?? '',
    requestedBy: input.actor,
  };
  const reviewId = randomId('rev_');
  insertReview(db, {
    id: reviewId,
    applicationId: input.applicationId,
    status: 'pending',
    createdAt: t,
    ...settings,
  });
  recordAudit(db, clock, {
    actor: input.actor,
    action: 'review.request',
    target: input.applicationId,
    details: { reviewId, ...(existing ? { replaces: existing.id } : {}), ...input.review },
  });
  return reviewId;
}

/**
 * Withdraws the pending review, if any, audited: an edit of the developer's that no longer widens
 * anything, or an operator's edit of production (`reason`), since the review was filed against
 * production as it was and approving it would undo the edit. Call inside the edit's transaction.
 */
export function withdrawPendingReview(
  db: Db,
  clock: Clock,
  applicationId: string,
  actor: AuditActor,
  reason?: string,
): void {
  const pending = findPendingReview(db, applicationId);
  if (!pending) return;
  setReviewFields(db, pending.id, { status: 'withdrawn', decidedAt: unix(clock) });
  recordAudit(db, clock, {
    actor,
    action: 'review.withdraw',
    target: applicationId,
    details: { reviewId: pending.id, ...(reason ? { reason } : {}) },
  });
}
