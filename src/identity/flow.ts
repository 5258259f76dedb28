import { securityEvent } from '../audit/security-events.ts';
import { findActiveConsent, grantConsent, markConsentUsed } from '../consent/grant.ts';
import { consentHolder } from '../consent/holder.ts';
import type { AppContext } from '../context.ts';
import { subjectFor } from '../keys/pairwise.ts';
import type { FaceFailure } from '../oauth/authorization-request.store.ts';
import {
  type AuthorizationRequest,
  approveAuthorization,
  claimAuthorizationRequest,
  faceChallengeToShow,
  faceCheckCutOff,
  failFaceCheck,
  loadAuthorizationRequest,
  rejectAuthorization,
  startFaceCheck,
  updateAuthorizationRequest,
} from '../oauth/authorization-result.ts';
import { createPersonStore, type FlowPerson } from '../persons/person.store.ts';
import { unix } from '../platform/clock.ts';
import { createSessionStore, type Session } from '../web/session.store.ts';
import { assuranceUnmet, faceCheckReusable } from './assurance.ts';
import {
  FACE_CHALLENGE_REUSE_SECONDS,
  FACE_CHALLENGE_SECONDS,
  type FaceChallenge,
  faceChallenge,
  newFaceChallengeValue,
} from './face/challenge.ts';
import { type FaceProvider, FaceProviderError, type FaceResult, facePassed } from './face/provider.ts';
import { messagesFor } from './messages/index.ts';

/**
 * The steps of the hosted flow, independent of HTTP: sign-in → face assurance → consent → code.
 * Each function answers what the browser should see next; the router only renders or redirects.
 */

export type Next =
  | { kind: 'signin' }
  | { kind: 'face' }
  | { kind: 'consent' }
  /** Leave the identity experience for the client's callback (a code or an error). */
  | { kind: 'callback'; url: string };

/** Why a request cannot be shown to this browser. */
export class FlowError extends Error {
  constructor(
    readonly reason: 'unknown_request' | 'other_session' | 'sandbox_disabled',
    readonly status: 400 | 403 | 404 = 400,
  ) {
    super(reason);
  }
}

const prompts = (req: AuthorizationRequest) => new Set((req.prompt ?? '').split(' ').filter(Boolean));

/**
 * The request, if open, bound to this browser session: the first session that opens it owns it
 * (an atomic claim), and any other session is refused, so a leaked request URL cannot be completed
 * in an attacker's browser nor planted into a victim's.
 */
export function boundRequest(ctx: AppContext, requestId: string, session: Session): AuthorizationRequest {
  const req = loadAuthorizationRequest(ctx, requestId);
  if (!req) throw new FlowError('unknown_request', 404);
  if (req.sessionIdHash === undefined) {
    claimAuthorizationRequest(ctx, requestId, session.idHash);
    const again = loadAuthorizationRequest(ctx, requestId);
    if (!again) throw new FlowError('unknown_request', 404);
    if (again.sessionIdHash !== session.idHash) throw new FlowError('other_session', 403);
    return again;
  }
  if (req.sessionIdHash !== session.idHash) throw new FlowError('other_session', 403);
  return req;
}

export function checkSandboxAllowed(ctx: AppContext, req: AuthorizationRequest): void {
  if (req.environment === 'sandbox' && !ctx.config.identity.sandbox)
    throw new FlowError('sandbox_disabled', 403);
}

/** The signed-in person of the session, if they may be reused for this request without signing in again. */
async function reusableSignIn(
  ctx: AppContext,
  req: AuthorizationRequest,
  session: Session,
): Promise<FlowPerson | undefined> {
  if (!session.subjectId || session.authTime === null) return undefined;
  const person = createPersonStore(ctx.db).flowPerson(session.subjectId);
  if (person?.status !== 'active' || person.environment !== req.environment) return undefined;
  // max_age=0 asks for a sign-in now (OIDC Core §3.1.2.1): a session from this very second is no answer.
  if (prompts(req).has('login') || req.maxAge === 0) return undefined;
  if (req.maxAge !== undefined && unix(ctx.clock) - session.authTime > req.maxAge) return undefined;
  if (!(await isHinted(ctx, req, person))) return undefined;
  return person;
}

/** Whether the person is the one the request's `id_token_hint` names, if it has one. */
async function isHinted(ctx: AppContext, req: AuthorizationRequest, person: FlowPerson): Promise<boolean> {
  return (
    req.idTokenHintSub === undefined ||
    (await subjectFor(ctx, req.applicationId, person.id)) === req.idTokenHintSub
  );
}

/** The consent this request asks for; a persona's is held by the request's browser session. */
const consentKey = (req: AuthorizationRequest, person: FlowPerson) => ({
  ...consentHolder(person, req.sessionIdHash),
  environmentId: req.environmentId,
  purpose: req.purpose,
  scopes: req.scopes,
});

function reject(
  ctx: AppContext,
  req: AuthorizationRequest,
  error: string,
  description: string,
  decision: 'denied' | 'failed',
  reason: string,
): Next {
  return {
    kind: 'callback',
    url: rejectAuthorization(ctx, req.id, { error, description, decision, reason }),
  };
}

/** The ids a security event about this request carries. */
export const requestFields = (req: AuthorizationRequest, personId = req.personId) => ({
  applicationId: req.applicationId,
  clientId: req.clientId,
  environment: req.environment,
  personId,
});

/** Face assurance did not pass: `face.failed` with its reason, and the request ends with access_denied. */
function faceFailed(ctx: AppContext, req: AuthorizationRequest, description: string, reason: string): Next {
  securityEvent(ctx, 'face.failed', { ...requestFields(req), reason });
  return reject(ctx, req, 'access_denied', description, 'failed', reason);
}

/**
 * A face check that ran and did not pass: the face step again while `[face] attempts` allow, else the
 * request ends as `faceFailed` ends it.
 */
function faceCheckFailed(
  ctx: AppContext,
  req: AuthorizationRequest,
  description: string,
  reason: FaceFailure,
): Next {
  securityEvent(ctx, 'face.failed', { ...requestFields(req), reason });
  const rejection = { error: 'access_denied', description, decision: 'failed', reason } as const;
  const result = failFaceCheck(ctx, req.id, reason, ctx.config.face.attempts, rejection);
  return 'callback' in result ? { kind: 'callback', url: result.callback } : { kind: 'face' };
}

/**
 * The face step of a request waiting for it, unless its last allowed check was cut off (a crash during
 * the provider's call): then no check is left to run, and the request ends.
 */
export function faceStep(ctx: AppContext, req: AuthorizationRequest): Next {
  if (!faceCheckCutOff(ctx, req.id)) return { kind: 'face' };
  const m = messagesFor(req.uiLocales);
  return faceFailed(ctx, req, m.descFaceProvider(m.faceCheckCutOff), 'face_check_cut_off');
}

/**
 * The camera page's challenge: the one shown before while it is unused and younger than
 * FACE_CHALLENGE_REUSE_SECONDS, or else a new one, with the seconds left to answer it. Undefined once
 * the request is past the step.
 */
export function showFaceChallenge(
  ctx: AppContext,
  req: AuthorizationRequest,
): (FaceChallenge & { answerWithin: number }) | undefined {
  const now = unix(ctx.clock);
  const shown = faceChallengeToShow(ctx, req.id, newFaceChallengeValue(), now - FACE_CHALLENGE_REUSE_SECONDS);
  if (!shown) return undefined;
  return { ...faceChallenge(shown.value), answerWithin: shown.issuedAt + FACE_CHALLENGE_SECONDS - now };
}

/** The face step after failed checks: why the last one failed and how many tries are left. */
export interface FaceRetry {
  reason: FaceFailure;
  attemptsLeft: number;
}

export function faceRetry(ctx: AppContext, req: AuthorizationRequest): FaceRetry | undefined {
  if (!req.lastFaceFailure) return undefined;
  return { reason: req.lastFaceFailure, attemptsLeft: ctx.config.face.attempts - req.faceFailures };
}

/** The person's assurance level cannot satisfy the request: it ends before face assurance and consent. */
function assuranceFailed(ctx: AppContext, req: AuthorizationRequest): Next {
  const m = messagesFor(req.uiLocales);
  return reject(
    ctx,
    req,
    'unmet_authentication_requirements',
    m.descAssuranceUnmet,
    'failed',
    'assurance_unmet',
  );
}

/** Opening the request (or coming back to it): where the person stands. */
export async function resume(ctx: AppContext, req: AuthorizationRequest, session: Session): Promise<Next> {
  const m = messagesFor(req.uiLocales);
  if (req.status === 'face_passed') return { kind: 'consent' };
  if (req.status === 'authenticated') return faceStep(ctx, req);
  const person = await reusableSignIn(ctx, req, session);
  if (prompts(req).has('none')) {
    // Unless a recent face check covers it, face assurance needs the person, so prompt=none fails; the
    // answer says what is missing first.
    if (!person) return reject(ctx, req, 'login_required', m.descLoginRequired, 'failed', 'login_required');
    if (assuranceUnmet(req, person)) return assuranceFailed(ctx, req);
    if (!findActiveConsent(ctx.db, ctx.clock, consentKey(req, person)))
      return reject(ctx, req, 'consent_required', m.descConsentRequired, 'failed', 'consent_required');
    if (faceCheckReusable(ctx, session)) return authenticated(ctx, req, person, session);
    return reject(
      ctx,
      req,
      'interaction_required',
      m.descInteractionRequired,
      'failed',
      'interaction_required',
    );
  }
  if (!person) return { kind: 'signin' };
  return authenticated(ctx, req, person, session);
}

/**
 * The session's person takes the request on: it ends if their assurance level falls short, and skips
 * the face step when a recent face check in this session covers it (which this authorization then
 * did not perform: no `face` in amr, liveness and match not verified by it).
 */
async function authenticated(
  ctx: AppContext,
  req: AuthorizationRequest,
  person: FlowPerson,
  session: Session,
): Promise<Next> {
  // Someone else signed in where the client asked for the person of its hint (OIDC Core §3.1.2.1).
  if (!(await isHinted(ctx, req, person)))
    return reject(
      ctx,
      req,
      'login_required',
      messagesFor(req.uiLocales).descHintMismatch,
      'failed',
      'login_required',
    );
  if (assuranceUnmet(req, person)) return assuranceFailed(ctx, req);
  const signIn = { personId: person.id, authTime: session.authTime!, amr: session.amr };
  updateAuthorizationRequest(ctx, req.id, {
    status: 'authenticated',
    ...signIn,
    acr: person.assuranceLevel,
    livenessVerified: null,
    faceMatchVerified: null,
  });
  if (!faceCheckReusable(ctx, session)) return { kind: 'face' };
  return faceSettled(ctx, { ...req, ...signIn }, person, {
    amr: session.amr,
    livenessVerified: false,
    faceMatchVerified: false,
  });
}

/** After a successful sign-in in this request (the session already carries the person). */
export const signedIn = (ctx: AppContext, req: AuthorizationRequest, person: FlowPerson, session: Session) =>
  authenticated(ctx, req, person, session);

export type ForcedOutcome = 'none' | 'deny' | 'fail_liveness' | 'fail_match';

/** Sandbox forced outcomes that end the flow right after the persona is chosen. */
export function applyForcedOutcome(
  ctx: AppContext,
  req: AuthorizationRequest,
  outcome: ForcedOutcome,
): Next | undefined {
  const m = messagesFor(req.uiLocales);
  if (outcome === 'deny') return reject(ctx, req, 'access_denied', m.descDenied, 'denied', 'person_denied');
  if (outcome === 'fail_liveness') return faceFailed(ctx, req, m.descFailLiveness, 'liveness_failed');
  if (outcome === 'fail_match') return faceFailed(ctx, req, m.descFailMatch, 'face_match_failed');
  return undefined;
}

/**
 * "Cancel and return to <application>", offered at every step: the request ends as a denial, at most
 * once (a second cancel, or one after the request ended, finds it no longer open).
 */
export function cancel(ctx: AppContext, req: AuthorizationRequest): Next {
  const m = messagesFor(req.uiLocales);
  return reject(ctx, req, 'access_denied', m.descCancelled, 'denied', 'cancelled_by_person');
}

/** The request's person, who must be the session's signed-in person, at the expected step. */
export function personAtStep(
  ctx: AppContext,
  req: AuthorizationRequest,
  session: Session,
  status: 'authenticated' | 'face_passed',
): FlowPerson | undefined {
  if (req.status !== status || !req.personId || req.personId !== session.subjectId) return undefined;
  const person = createPersonStore(ctx.db).flowPerson(req.personId);
  return person?.status === 'active' ? person : undefined;
}

/** `[face] provider = "none"` (or unusable) in a production flow: the request ends with access_denied. */
export function faceUnavailable(ctx: AppContext, req: AuthorizationRequest): Next {
  const m = messagesFor(req.uiLocales);
  return faceFailed(ctx, req, m.descFaceUnavailable, 'face_unavailable');
}

/**
 * Runs face assurance for the request's person. A pass moves on to consent — or straight to the code
 * when an identical active consent exists and prompt=consent was not asked. A failed liveness or match
 * check may be tried again up to `[face] attempts`; any other failure (no template, no frames, the
 * provider unavailable) ends the request with access_denied and a description. Frames are handed to
 * the provider and dropped. Outside the sandbox they answer the request's current challenge
 * (`showFaceChallenge`), once and in time; any other shows the step again and counts nothing.
 */
export async function verifyFace(
  ctx: AppContext,
  req: AuthorizationRequest,
  person: FlowPerson,
  provider: FaceProvider,
  posted: { frames: string[]; challenge?: string },
): Promise<Next> {
  const m = messagesFor(req.uiLocales);
  const { frames } = posted;
  if (!person.faceTemplateRef) return faceFailed(ctx, req, m.descNoTemplate, 'no_face_template');
  const scripted = provider.name === 'sandbox';
  if (!scripted && frames.length === 0) return faceFailed(ctx, req, m.descFaceNoFrames, 'no_frames');
  let challenge: FaceChallenge | undefined;
  if (!scripted) {
    if (!posted.challenge) return faceStep(ctx, req);
    challenge = faceChallenge(posted.challenge);
  }
  const issuedAfter = unix(ctx.clock) - FACE_CHALLENGE_SECONDS;
  // Counted before the provider sees the frames: concurrent posts get no more checks than allowed.
  if (!startFaceCheck(ctx, req.id, challenge && { value: challenge.value, issuedAfter }))
    return faceStep(ctx, req);
  let result: FaceResult;
  try {
    result = await provider.verify({
      frames,
      templateRef: person.faceTemplateRef,
      personId: person.id,
      ...(challenge && { challenge }),
    });
  } catch (e) {
    if (!(e instanceof FaceProviderError)) throw e;
    ctx.log.warn('face provider failed', { provider: provider.name, error: e.message });
    return faceFailed(ctx, req, m.descFaceProvider(e.message), 'face_provider_error');
  }
  if (!result.liveness.passed) return faceCheckFailed(ctx, req, m.descFailLiveness, 'liveness_failed');
  if (!result.match.passed) return faceCheckFailed(ctx, req, m.descFailMatch, 'face_match_failed');
  if (!facePassed(result)) throw new Error('unreachable');
  securityEvent(ctx, 'face.passed', requestFields(req, person.id));
  if (req.sessionIdHash)
    createSessionStore(ctx.db).recordFaceCheck(req.sessionIdHash, person.id, unix(ctx.clock));

  const amr = [...new Set([...req.amr, 'face'])];
  return faceSettled(ctx, req, person, { amr, livenessVerified: true, faceMatchVerified: true });
}

/**
 * Face assurance is settled: on to consent, or straight to the code when an identical active consent
 * exists and prompt=consent was not asked.
 */
async function faceSettled(
  ctx: AppContext,
  req: AuthorizationRequest,
  person: FlowPerson,
  face: { amr: string[]; livenessVerified: boolean; faceMatchVerified: boolean },
): Promise<Next> {
  updateAuthorizationRequest(ctx, req.id, { status: 'face_passed', ...face });
  if (!prompts(req).has('consent')) {
    const existing = findActiveConsent(ctx.db, ctx.clock, consentKey(req, person));
    if (existing) {
      markConsentUsed(ctx.db, ctx.clock, existing.id);
      return approve(ctx, { ...req, ...face }, person, existing.id);
    }
  }
  return { kind: 'consent' };
}

async function approve(
  ctx: AppContext,
  req: AuthorizationRequest,
  person: FlowPerson,
  consentId: string,
): Promise<Next> {
  // The level is read again here: it may have been lowered since the person signed in.
  if (assuranceUnmet(req, person)) return assuranceFailed(ctx, req);
  const url = await approveAuthorization(ctx, req.id, {
    personId: person.id,
    consentId,
    authTime: req.authTime!,
    // The level the person actually reached, never the one asked for.
    acr: person.assuranceLevel,
    amr: req.amr,
    livenessVerified: req.livenessVerified === true,
    faceMatchVerified: req.faceMatchVerified === true,
  });
  return { kind: 'callback', url };
}

/** Allow: the consent (and its event) is recorded, then the code is issued. Deny: access_denied. */
export async function decideConsent(
  ctx: AppContext,
  req: AuthorizationRequest,
  person: FlowPerson,
  decision: 'allow' | 'deny',
): Promise<Next> {
  const m = messagesFor(req.uiLocales);
  if (decision === 'deny') return reject(ctx, req, 'access_denied', m.descDenied, 'denied', 'person_denied');
  const consent = await grantConsent(ctx, {
    applicationId: req.applicationId,
    environment: req.environment,
    ...consentKey(req, person),
  });
  return approve(ctx, req, person, consent.id);
}
