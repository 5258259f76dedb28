import { type AuditActor, recordAudit } from '../audit/audit.store.ts';
import { securityEvent } from '../audit/security-events.ts';
import { RESTRICTED_SCOPES } from '../capabilities/scopes.ts';
import type { AppContext } from '../context.ts';
import { randomId } from '../crypto/tokens.ts';
import type { Db } from '../db/open.ts';
import { ValidationError } from '../errors.ts';
import { sealedSecrets } from '../keys/instance-secrets.ts';
import { type Clock, unix } from '../platform/clock.ts';
import {
  findEnvironment,
  findPendingReview,
  getApplication,
  insertEnvironment,
  insertReview,
  newClientSecret,
  type ReviewView,
  replacePostLogoutRedirectUris,
  replaceRedirectUris,
  replaceWebOrigins,
  setApplicationFields,
  setEnvironmentFields,
  setReviewFields,
  toReviewView,
} from './application.store.ts';
import { checkDocumentCountries, checkDocumentTypes } from './document-policy-rules.ts';
import { checkPostLogoutRedirectUris, checkRedirectUris } from './redirect-uri-rules.ts';
import type { IssuedCredentials } from './registration.ts';
import { ruleViolation } from './rule-error.ts';
import { checkScopes } from './scope-rules.ts';
import { insertSecretReveal } from './secret-reveal.store.ts';
import { checkWebOrigins, productionWebOrigins } from './web-origin-rules.ts';

const FULL_NUMBER = RESTRICTED_SCOPES[0]!;
const MAX_TEXT = 2000;
/** How long a developer has to reveal the production secret issued at approval. */
export const SECRET_REVEAL_SECONDS = 24 * 3600;

export interface ReviewRequestInput {
  justification: string;
  /** Scopes asked for production; default: the sandbox scopes. */
  scopes?: readonly string[];
  /** Required when `document_number_full` is asked for. */
  fullNumberJustification?: string;
  actor: AuditActor;
}

function checkText(path: string, label: string, value: string | undefined): string {
  const v = (value ?? '').trim();
  if (v === '') throw ruleViolation(path, `a ${label} is required`);
  if (v.length > MAX_TEXT)
    throw ruleViolation(path, `the ${label} must be at most ${MAX_TEXT} characters long`);
  return v;
}

/**
 * Files a production review: the justification, the production scopes, and for `document_number_full`
 * a separate justification. One review is pending at a time. The first review also holds the sandbox's
 * callback and post-logout URIs, document policy and https web origins as they are now: production
 * starts with what the operator saw, whatever the sandbox becomes meanwhile. Approving a later review
 * of an application already in production changes its production scopes.
 */
export function requestProductionReview(
  db: Db,
  clock: Clock,
  applicationId: string,
  input: ReviewRequestInput,
): ReviewView {
  const justification = checkText('justification', 'justification', input.justification);
  return db.sql.transaction(() => {
    const app = getApplication(db, applicationId);
    const sandbox = app.environments.find((e) => e.environment === 'sandbox')!;
    // Production rules, with the approval the review itself would grant.
    const scopes = checkScopes(input.scopes ?? sandbox.scopes, 'production', { fullNumberApproved: true });
    const asksFullNumber = scopes.includes(FULL_NUMBER);
    const fullNumberJustification = asksFullNumber
      ? checkText(
          'fullNumberJustification',
          `justification for ${FULL_NUMBER} (why the full document number is needed)`,
          input.fullNumberJustification,
        )
      : null;
    if (findPendingReview(db, applicationId))
      throw new ValidationError(`application ${applicationId} already has a pending production review`);
    const first = !app.environments.some((e) => e.environment === 'production');
    const snapshot = (list: readonly string[]) => (first ? JSON.stringify(list) : null);
    const row = {
      id: randomId('rev_'),
      applicationId,
      status: 'pending' as const,
      justification,
      scopes: JSON.stringify(scopes),
      redirectUris: snapshot(sandbox.redirectUris),
      webOrigins: snapshot(productionWebOrigins(sandbox.webOrigins)),
      postLogoutRedirectUris: snapshot(sandbox.postLogoutRedirectUris),
      documentTypes: snapshot(sandbox.documentTypes),
      documentCountries: snapshot(sandbox.documentCountries),
      fullNumberJustification,
      requestedBy: input.actor,
      createdAt: unix(clock),
    };
    insertReview(db, row);
    recordAudit(db, clock, {
      actor: input.actor,
      action: 'review.request',
      target: applicationId,
      details: { reviewId: row.id, scopes },
    });
    return toReviewView({ ...row, decisionReason: null, decidedAt: null });
  });
}

/**
 * Approves the pending review, or, when none is pending, records the operator's direct approval of the
 * sandbox scopes. With `reviewId` only that review is approved, and only while it is pending: an
 * operator who read a review approves exactly it, never one filed or withdrawn since. Production then
 * serves exactly the reviewed settings. The first approval creates the production environment: a
 * `cid_live_` client ID, a `cs_live_` secret for confidential clients (returned once, and kept sealed
 * for its developer's one reveal in the portal), the reviewed scopes, and the callback and post-logout
 * URIs, document policy and https web origins the review holds (the sandbox's, for a direct approval)
 * as a starting point.
 */
export async function approveReview(
  ctx: Pick<AppContext, 'db' | 'clock' | 'config' | 'log' | 'metrics'>,
  applicationId: string,
  opts: { actor: AuditActor; reason?: string; reviewId?: string },
): Promise<IssuedCredentials> {
  const { db, clock } = ctx;
  // Hashing and sealing are async and must happen before the synchronous transaction; unused if
  // production exists.
  const credential = await newClientSecret('production');
  const sealed = await sealedSecrets(ctx.config, 'client secrets').seal(applicationId, credential.secret);
  const approved = db.sql.transaction(() => {
    const app = getApplication(db, applicationId);
    const sandbox = app.environments.find((e) => e.environment === 'sandbox')!;
    const t = unix(clock);
    let review = findPendingReview(db, applicationId);
    if (opts.reviewId !== undefined && review?.id !== opts.reviewId)
      throw new ValidationError(
        `review ${opts.reviewId} is not the pending production review of ${applicationId}` +
          (review ? ` (${review.id} is)` : ' (none is pending)'),
      );
    if (!review) {
      review = {
        id: randomId('rev_'),
        applicationId,
        status: 'pending',
        justification: 'approved directly by an operator',
        scopes: JSON.stringify(checkScopes(sandbox.scopes, 'production', { fullNumberApproved: true })),
        redirectUris: null,
        webOrigins: null,
        postLogoutRedirectUris: null,
        documentTypes: null,
        documentCountries: null,
        fullNumberJustification: null,
        decisionReason: null,
        requestedBy: opts.actor,
        createdAt: t,
        decidedAt: null,
      };
      insertReview(db, review);
    }
    const asked = toReviewView(review);
    const scopes = checkScopes(asked.scopes, 'production', { fullNumberApproved: true });
    const grantsFullNumber =
      scopes.includes(FULL_NUMBER) && (!!review.fullNumberJustification || app.fullNumberApproved);
    setReviewFields(db, review.id, {
      status: 'approved',
      decidedAt: t,
      decisionReason: opts.reason?.trim() || null,
    });
    // The flag follows the latest approved scopes, so narrowing production also withdraws it.
    if (grantsFullNumber !== app.fullNumberApproved)
      setApplicationFields(db, applicationId, { fullNumberApproved: grantsFullNumber, updatedAt: t });
    const existing = findEnvironment(db, applicationId, 'production');
    let result: IssuedCredentials;
    const redirectUris = asked.redirectUris && checkRedirectUris(asked.redirectUris);
    const webOrigins = asked.webOrigins && checkWebOrigins(asked.webOrigins, 'production');
    const postLogoutUris =
      asked.postLogoutRedirectUris && checkPostLogoutRedirectUris(asked.postLogoutRedirectUris);
    const documentTypes = asked.documentTypes && checkDocumentTypes(asked.documentTypes);
    const documentCountries = asked.documentCountries && checkDocumentCountries(asked.documentCountries);
    if (existing) {
      setEnvironmentFields(db, existing.id, {
        scopes: JSON.stringify(scopes),
        ...(documentTypes ? { documentTypes: JSON.stringify(documentTypes) } : {}),
        ...(documentCountries ? { documentCountries: JSON.stringify(documentCountries) } : {}),
      });
      if (redirectUris) replaceRedirectUris(db, existing.id, redirectUris);
      if (webOrigins) replaceWebOrigins(db, existing.id, webOrigins);
      if (postLogoutUris) replacePostLogoutRedirectUris(db, existing.id, postLogoutUris);
      result = { applicationId, environment: 'production', clientId: existing.clientId };
    } else {
      const secret = app.type === 'confidential' ? credential : undefined;
      const env = insertEnvironment(db, clock, {
        applicationId,
        environment: 'production',
        scopes,
        redirectUris: redirectUris ?? sandbox.redirectUris,
        // Sandbox may allow http://localhost pages; production starts with its https origins only.
        webOrigins: webOrigins ?? productionWebOrigins(sandbox.webOrigins),
        postLogoutRedirectUris: postLogoutUris ?? sandbox.postLogoutRedirectUris,
        documentTypes: documentTypes ?? sandbox.documentTypes,
        documentCountries: documentCountries ?? sandbox.documentCountries,
        minimumAcr: sandbox.minimumAcr,
        idTokenSignedResponseAlg: sandbox.idTokenSignedResponseAlg,
        secretHash: secret?.hash,
      });
      // Its developer reveals it once in the portal, so no operator passes it on by hand.
      if (secret && app.ownerDeveloperId)
        insertSecretReveal(db, {
          applicationId,
          sealedSecret: sealed,
          createdAt: t,
          expiresAt: t + SECRET_REVEAL_SECONDS,
        });
      result = {
        applicationId,
        environment: 'production',
        clientId: env.clientId,
        ...(secret ? { clientSecret: secret.secret } : {}),
      };
    }
    recordAudit(db, clock, {
      actor: opts.actor,
      action: 'review.approve',
      target: applicationId,
      details: {
        reviewId: review.id,
        scopes,
        ...(redirectUris ? { redirectUris } : {}),
        ...(webOrigins ? { webOrigins } : {}),
        ...(postLogoutUris ? { postLogoutRedirectUris: postLogoutUris } : {}),
        clientId: result.clientId,
        fullNumberApproved: grantsFullNumber,
        createdProduction: !existing,
      },
    });
    return { ...result, reviewId: review.id };
  });
  const { reviewId, ...result } = approved;
  securityEvent(ctx, 'review.approved', { applicationId, reviewId, actor: opts.actor });
  return result;
}

/** Rejects the pending review with a reason the developer will read. Production is left as it was. */
export function rejectReview(
  db: Db,
  clock: Clock,
  applicationId: string,
  opts: { reason: string; actor: AuditActor },
): ReviewView {
  const reason = checkText('reason', 'reason', opts.reason);
  return db.sql.transaction(() => {
    getApplication(db, applicationId);
    const review = findPendingReview(db, applicationId);
    if (!review) throw new ValidationError(`application ${applicationId} has no pending production review`);
    const decided = {
      ...review,
      status: 'rejected' as const,
      decisionReason: reason,
      decidedAt: unix(clock),
    };
    setReviewFields(db, review.id, {
      status: 'rejected',
      decisionReason: reason,
      decidedAt: decided.decidedAt,
    });
    recordAudit(db, clock, {
      actor: opts.actor,
      action: 'review.reject',
      target: applicationId,
      details: { reviewId: review.id, reason },
    });
    return toReviewView(decided);
  });
}
