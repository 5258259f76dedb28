import type { ApplicationType } from '../apps/application.store.ts';

import { storedClaimsRequest } from '../assurance/claims-request.ts';
import { securityEvent } from '../audit/security-events.ts';
import { isConsentInForceFor } from '../consent/consent.store.ts';
import type { AppContext } from '../context.ts';
import { mintLocatedSecret } from '../crypto/located-secret.ts';
import type { Environment } from '../environment.ts';
import { NotFoundError } from '../errors.ts';
import { subjectFor } from '../keys/pairwise.ts';
import { unix } from '../platform/clock.ts';
import { meets } from '../sdk/element-match.ts';
import type { EventData } from '../webhooks/events.ts';
import { enqueueEvent } from '../webhooks/outbox.store.ts';
import {
  createAuthorizationRequestStore,
  type FaceFailure,
  type JoinedRequestRow,
  OPEN_STATUSES,
  type RequestStatus,
} from './authorization-request.store.ts';
import type { ValidAuthorizeRequest } from './authorize-checks.ts';
import { callbackUrl } from './callback-url.ts';
import { createCodeStore } from './code.store.ts';

/**
 * An open authorization request as the identity experience sees it: the checked parameters (with the
 * client reduced to what the pages show) and the progress recorded so far.
 */
export interface AuthorizationRequest extends Omit<ValidAuthorizeRequest, 'client'> {
  id: string;
  status: RequestStatus;
  applicationId: string;
  applicationName: string;
  applicationType: ApplicationType;
  environment: Environment;
  environmentId: string;
  clientId: string;
  sessionIdHash?: string;
  personId?: string;
  authTime?: number;
  amr: string[];
  acr?: string;
  livenessVerified?: boolean;
  faceMatchVerified?: boolean;
  /** Face checks failed so far in this request, and why the last one did. */
  faceFailures: number;
  lastFaceFailure?: FaceFailure;
  createdAt: number;
  expiresAt: number;
}

export interface Grant {
  personId: string;
  consentId: string;
  /** Unix seconds of the person's authentication. */
  authTime: number;
  /** The identity assurance level reached. */
  acr: string;
  amr: string[];
  livenessVerified: boolean;
  faceMatchVerified: boolean;
}

export interface Rejection {
  /** OAuth error code for the callback, e.g. access_denied, login_required, consent_required. */
  error: string;
  description: string;
  decision: 'denied' | 'failed';
  /** Recorded in the claim_access.completed event. */
  reason?: string;
}

const orUndefined = <T>(v: T | null): T | undefined => (v === null ? undefined : v);
const optBool = (v: number | null) => (v === null ? undefined : v === 1);

function toRequest(r: JoinedRequestRow): AuthorizationRequest {
  return {
    id: r.id,
    status: r.status,
    applicationId: r.application_id,
    applicationName: r.application_name,
    applicationType: r.application_type,
    environment: r.environment,
    environmentId: r.environment_id,
    clientId: r.client_id,
    redirectUri: r.redirect_uri,
    scopes: JSON.parse(r.scopes) as string[],
    state: r.state,
    nonce: orUndefined(r.nonce),
    codeChallenge: orUndefined(r.code_challenge),
    purpose: r.purpose,
    display: r.display,
    prompt: orUndefined(r.prompt),
    maxAge: orUndefined(r.max_age),
    loginHint: orUndefined(r.login_hint),
    uiLocales: orUndefined(r.ui_locales),
    requiredAcr: orUndefined(r.required_acr),
    claims: storedClaimsRequest(r.claims),
    idTokenHintSub: orUndefined(r.id_token_hint_sub),
    sessionIdHash: orUndefined(r.session_id_hash),
    personId: orUndefined(r.person_id),
    authTime: orUndefined(r.auth_time),
    amr: JSON.parse(r.amr) as string[],
    acr: orUndefined(r.acr),
    livenessVerified: optBool(r.liveness_verified),
    faceMatchVerified: optBool(r.face_match_verified),
    faceFailures: r.face_failures,
    lastFaceFailure: orUndefined(r.last_face_failure),
    createdAt: r.created_at,
    expiresAt: r.expires_at,
  };
}

/** The request if it is still open and unexpired; undefined if unknown, expired or finished. */
export function loadAuthorizationRequest(
  ctx: AppContext,
  requestId: string,
): AuthorizationRequest | undefined {
  const row = createAuthorizationRequestStore(ctx.db).joined(requestId);
  if (!row || !OPEN_STATUSES.includes(row.status) || row.expires_at <= unix(ctx.clock)) return undefined;
  return toRequest(row);
}

/** Binds the request to the first session that opens it (an atomic claim); the caller reloads to see who won. */
export function claimAuthorizationRequest(ctx: AppContext, requestId: string, sessionIdHash: string): void {
  createAuthorizationRequestStore(ctx.db).claimForSession(requestId, sessionIdHash);
}

/** Records progress of an open request (session binding, sign-in, face result). False if it is no longer open. */
export function updateAuthorizationRequest(
  ctx: AppContext,
  requestId: string,
  patch: Parameters<ReturnType<typeof createAuthorizationRequestStore>['update']>[2],
): boolean {
  return createAuthorizationRequestStore(ctx.db).update(requestId, unix(ctx.clock), patch);
}

/** `claim_access.completed` for the request's application; call inside the transaction that ends it. */
function enqueueCompleted(
  ctx: AppContext,
  row: JoinedRequestRow,
  outcome: Omit<EventData['claim_access.completed'], 'applicationId' | 'environment'>,
): void {
  enqueueEvent(ctx, {
    type: 'claim_access.completed',
    applicationId: row.application_id,
    environment: row.environment,
    data: { applicationId: row.application_id, environment: row.environment, ...outcome },
  });
}

/**
 * Ends a request with a code. The code (256 random bits, stored only as its SHA-256), the request's
 * completion and the `claim_access.completed` event commit together; a request completes only once.
 * Returns the callback URL the browser is sent to.
 */
export async function approveAuthorization(
  ctx: AppContext,
  requestId: string,
  grant: Grant,
): Promise<string> {
  const requests = createAuthorizationRequestStore(ctx.db);
  const codes = createCodeStore(ctx.db);
  const row = requests.joined(requestId);
  if (!row) throw new NotFoundError('Unknown authorization request.');
  // Async work happens before the (synchronous) transaction.
  const code = mintLocatedSecret(ctx.clock);
  const sub = await subjectFor(ctx, row.application_id, grant.personId);
  // OIDC Core §5.5.1: an ID token `sub` requested with a value is answered only for that person.
  const subject = storedClaimsRequest(row.claims)?.id_token?.claims.sub;
  if (subject && !meets(sub, subject, ctx.clock.now()))
    return rejectAuthorization(ctx, requestId, {
      error: 'access_denied',
      description: 'The person who signed in is not the one the claims request names.',
      decision: 'failed',
      reason: 'subject_mismatch',
    });
  const now = unix(ctx.clock);
  const scopes = JSON.parse(row.scopes) as string[];

  ctx.db.sql.transaction(() => {
    const amr = JSON.stringify(grant.amr);
    const completed = requests.complete(requestId, now, {
      personId: grant.personId,
      authTime: grant.authTime,
      acr: grant.acr,
      amr,
      liveness: grant.livenessVerified,
      faceMatch: grant.faceMatchVerified,
    });
    if (!completed) throw new NotFoundError('The authorization request is no longer open.');
    const inForce = isConsentInForceFor(
      ctx.db,
      {
        consentId: grant.consentId,
        personId: grant.personId,
        environmentId: row.environment_id,
        environment: row.environment,
      },
      now,
    );
    if (!inForce) throw new NotFoundError('The consent is not active for this person and application.');
    codes.insert({
      id: code.id,
      code_hash: code.hash,
      environment_id: row.environment_id,
      client_id: row.client_id,
      redirect_uri: row.redirect_uri,
      code_challenge: row.code_challenge,
      nonce: row.nonce,
      scopes: row.scopes,
      consent_id: grant.consentId,
      person_id: grant.personId,
      auth_time: grant.authTime,
      acr: grant.acr,
      amr,
      liveness_verified: grant.livenessVerified ? 1 : 0,
      face_match_verified: grant.faceMatchVerified ? 1 : 0,
      claims: row.claims,
      created_at: now,
      expires_at: now + Math.floor(ctx.config.oauth.code_ttl / 1000),
    });
    enqueueCompleted(ctx, row, { decision: 'approved', sub, scopes });
  });
  securityEvent(ctx, 'code.issued', {
    applicationId: row.application_id,
    clientId: row.client_id,
    environment: row.environment,
    personId: grant.personId,
    consentId: grant.consentId,
  });
  return callbackUrl(row.redirect_uri, {
    code: code.value,
    state: row.state,
    iss: ctx.config.server.base_url,
  });
}

/**
 * Counts a face check as it starts; false once `[face] attempts` are counted, or when `challenge` is
 * not the step's last one issued after `issuedAfter` (see the store).
 */
export const startFaceCheck = (
  ctx: AppContext,
  requestId: string,
  challenge?: { value: string; issuedAfter: number },
): boolean =>
  createAuthorizationRequestStore(ctx.db).startFaceCheck(
    requestId,
    unix(ctx.clock),
    ctx.config.face.attempts,
    challenge,
  );

/**
 * The challenge of the face step about to be shown: the unused one issued after `reuseAfter`, or else
 * `fresh` (see the store); undefined once the request is past the step.
 */
export const faceChallengeToShow = (
  ctx: AppContext,
  requestId: string,
  fresh: string,
  reuseAfter: number,
): { value: string; issuedAt: number } | undefined =>
  createAuthorizationRequestStore(ctx.db).faceChallenge(requestId, unix(ctx.clock), fresh, reuseAfter);

/**
 * Every attempt is counted and the last one, started longer ago than the provider's timeout and a
 * second, never answered: the process running it stopped, and the person would otherwise wait at a
 * face step that can no longer check until the request expires. The start is kept in whole seconds,
 * so one more second of margin.
 */
export const faceCheckCutOff = (ctx: AppContext, requestId: string): boolean =>
  createAuthorizationRequestStore(ctx.db).faceCheckCutOff(
    requestId,
    unix(ctx.clock),
    ctx.config.face.attempts,
    unix(ctx.clock) - Math.ceil(ctx.config.face.timeout / 1000) - 2,
  );

/**
 * A face check that ran and did not pass (counted on the request as it started, see
 * `startFaceCheck`, so neither a reload nor a second tab starts the count again): within `attempts`
 * the person may try again, and the failure that reaches it ends the request with `rejection`, in the
 * same transaction.
 */
export function failFaceCheck(
  ctx: AppContext,
  requestId: string,
  reason: FaceFailure,
  attempts: number,
  rejection: Rejection,
): { attemptsLeft: number } | { callback: string } {
  const requests = createAuthorizationRequestStore(ctx.db);
  return ctx.db.sql.transaction(() => {
    const failures = requests.recordFaceFailure(requestId, unix(ctx.clock), reason);
    if (failures === undefined) throw new NotFoundError('The authorization request is no longer open.');
    if (failures < attempts) return { attemptsLeft: attempts - failures };
    return { callback: rejectAuthorization(ctx, requestId, rejection) };
  });
}

/**
 * Ends a request with an error for the application (denied by the person, failed assurance, or a
 * prompt=none answer). The status change and the `claim_access.completed` event commit together.
 */
export function rejectAuthorization(ctx: AppContext, requestId: string, rejection: Rejection): string {
  const requests = createAuthorizationRequestStore(ctx.db);
  const row = requests.joined(requestId);
  if (!row) throw new NotFoundError('Unknown authorization request.');
  ctx.db.sql.transaction(() => {
    if (!requests.end(requestId, rejection.decision))
      throw new NotFoundError('The authorization request is no longer open.');
    enqueueCompleted(ctx, row, {
      decision: rejection.decision,
      ...(rejection.reason ? { reason: rejection.reason } : {}),
      scopes: JSON.parse(row.scopes) as string[],
    });
  });
  return callbackUrl(row.redirect_uri, {
    error: rejection.error,
    error_description: rejection.description,
    state: row.state,
    iss: ctx.config.server.base_url,
  });
}
