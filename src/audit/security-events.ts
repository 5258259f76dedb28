import type { AppContext } from '../context.ts';
import type { Environment } from '../environment.ts';
import type { Counter, Metrics } from './metrics.ts';

/** Every security event Verity logs, by its stable `event` name (docs/reference.md, "Security events"). */
export const SECURITY_EVENTS = [
  'signin.succeeded',
  'signin.failed',
  'signin.throttled',
  'signout',
  'face.passed',
  'face.failed',
  'consent.granted',
  'consent.revoked',
  'code.issued',
  'token.issued',
  'token.refused',
  'token.revoked',
  'review.requested',
  'review.approved',
  'review.rejected',
  'developer.signed_up',
  'developer.key_created',
] as const;
export type SecurityEvent = (typeof SECURITY_EVENTS)[number];

/**
 * What an event may carry: ids, outcomes and reasons only. A closed set of keys, so a password, code,
 * token, secret or email cannot be passed by accident.
 */
export interface SecurityEventFields {
  /** Taken from the context of the request being served when not given. */
  requestId?: string;
  /** The client address, for sign-in events (the throttle counts by it). */
  ip?: string;
  surface?: 'identity' | 'portal';
  method?: 'password' | 'sandbox' | 'open' | 'invitation';
  personId?: string;
  developerId?: string;
  applicationId?: string;
  clientId?: string;
  environment?: Environment;
  consentId?: string;
  reviewId?: string;
  keyId?: string;
  actor?: string;
  reason?: string;
  /** The OAuth error code of a refusal. */
  error?: string;
}

// Keyed by the context's own Metrics (a new context, a new registry): the registration, not state.
const counters = new WeakMap<Metrics, Counter>();
function counterOf(metrics: Metrics): Counter {
  let counter = counters.get(metrics);
  if (!counter) {
    counter = metrics.counter('verity_security_events_total', 'Security events by event name.');
    // Every series from the start, so a rate over a counter that has not moved yet is 0, not absent.
    for (const event of SECURITY_EVENTS) counter.inc({ event }, 0);
    counters.set(metrics, counter);
  }
  return counter;
}

/** Registers the counter, so `/metrics` lists every event before the first one happens. */
export const registerSecurityEvents = (metrics: Metrics): void => void counterOf(metrics);

/**
 * One info-level log line `{ msg: "security event", event, …fields }` and one count. While serving a
 * request, pass the request's context (`c.var.ctx`, which carries its `requestId`) or the id itself.
 */
export function securityEvent(
  ctx: Pick<AppContext, 'log' | 'metrics' | 'requestId'>,
  event: SecurityEvent,
  fields: SecurityEventFields = {},
): void {
  counterOf(ctx.metrics).inc({ event });
  const requestId = fields.requestId ?? ctx.requestId;
  ctx.log.info('security event', requestId ? { event, requestId, ...fields } : { event, ...fields });
}
