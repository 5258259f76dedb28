import { type AppContext, slot } from '../context.ts';
import { randomId } from '../crypto/tokens.ts';
import { sealedSecrets } from '../keys/instance-secrets.ts';
import { unix } from '../platform/clock.ts';
import { OutboundError, postOnce } from '../platform/outbound-http.ts';
import { type AttemptStatus, type ClaimedDelivery, createDeliveryStore } from './delivery.store.ts';
import { createEndpointStore } from './endpoint.store.ts';
import { webhookMetrics } from './metrics.ts';
import { MAX_ATTEMPTS, nextDelay, parseRetryAfter } from './schedule.ts';
import { signatureHeader } from './sign.ts';
import {
  addressProblem,
  TARGET_NOT_ALLOWED,
  TARGET_UNREACHABLE,
  type TargetPolicy,
  urlProblem,
} from './target-url.ts';

/** The interface's value, exactly: receivers may match it byte for byte. */
export const USER_AGENT = 'Service-Webhooks/1.0';

/** Deliveries in flight in one process, over all endpoints. */
const MAX_IN_FLIGHT = 64;
/** Of those, one developer's (all their applications'): slow receivers of theirs leave the rest free. */
export const MAX_IN_FLIGHT_PER_TENANT = MAX_IN_FLIGHT / 4;

const SECRET_LOG_INTERVAL_SECONDS = 60;

export interface AttemptOutcome {
  deliveryId: string;
  eventId: string;
  endpointId: string;
  attempt: number;
  status: AttemptStatus;
  responseStatus: number | null;
  error: string | null;
}

/**
 * Sends due deliveries. Each is leased in the database before its attempt and released by recording
 * the attempt, so a process that dies mid-delivery leaves a lease that expires and the delivery is
 * attempted again by whichever process runs next (at-least-once). Each endpoint has at most
 * `[webhooks] concurrency_per_endpoint` deliveries in flight, and each developer at most
 * MAX_IN_FLIGHT_PER_TENANT, so slow receivers hold their own slots and never all the others'.
 */
export class Dispatcher {
  private readonly inFlight = new Set<Promise<AttemptOutcome | undefined>>();
  /** Deliveries in flight per tenant (see ClaimedDelivery). */
  private readonly tenants = new Map<string, number>();
  private readonly deliveries;
  private readonly endpoints;
  private readonly metrics;
  private waking = false;
  /** Outcome lists of the drains under way. */
  private readonly collectors = new Set<AttemptOutcome[]>();

  constructor(private readonly ctx: AppContext) {
    this.deliveries = createDeliveryStore(ctx.db);
    this.endpoints = createEndpointStore(ctx.db);
    this.metrics = webhookMetrics(ctx);
  }

  /** Starts whatever is due without waiting for it; safe to call as often as wanted. */
  wake(): void {
    if (this.waking) return;
    this.waking = true;
    queueMicrotask(() => {
      this.waking = false;
      try {
        this.fill();
      } catch (e) {
        this.ctx.log.error('webhook dispatch failed', { error: String(e) });
      }
    });
  }

  /** Counts deliveries queued by this process (the outbox tells us). */
  countQueued(n: number): void {
    this.metrics.queued.inc({}, n);
  }

  /**
   * Attempts everything due now, waits for those attempts, and repeats until nothing is due and
   * nothing is in flight. Returns the outcomes of the attempts it started.
   */
  async drain(): Promise<AttemptOutcome[]> {
    const outcomes: AttemptOutcome[] = [];
    this.collectors.add(outcomes);
    try {
      for (;;) {
        this.fill();
        if (this.inFlight.size === 0) break;
        await Promise.race(this.inFlight);
      }
    } finally {
      this.collectors.delete(outcomes);
    }
    return outcomes;
  }

  /** Leases as many due deliveries as there are free slots and starts them. */
  private fill(): Promise<AttemptOutcome | undefined>[] {
    const free = MAX_IN_FLIGHT - this.inFlight.size;
    if (free <= 0) return [];
    const cfg = this.ctx.config.webhooks;
    const claimed = this.deliveries.claimDue({
      now: unix(this.ctx.clock),
      leaseSeconds: leaseSeconds(cfg.lease, cfg.timeout),
      perEndpoint: cfg.concurrency_per_endpoint,
      limit: free,
      perTenant: MAX_IN_FLIGHT_PER_TENANT,
      inFlight: this.tenants,
    });
    return claimed.map((c) => {
      this.tenants.set(c.tenant, (this.tenants.get(c.tenant) ?? 0) + 1);
      const p: Promise<AttemptOutcome | undefined> = this.attempt(c)
        .then((o) => {
          if (o) for (const list of this.collectors) list.push(o);
          return o;
        })
        .catch((e) => {
          this.ctx.log.error('webhook attempt failed to record', { deliveryId: c.id, error: String(e) });
          return undefined;
        })
        .finally(() => {
          this.inFlight.delete(p);
          const left = this.tenants.get(c.tenant)! - 1;
          if (left) this.tenants.set(c.tenant, left);
          else this.tenants.delete(c.tenant);
          this.wake();
        });
      this.inFlight.add(p);
      return p;
    });
  }

  private async attempt(c: ClaimedDelivery): Promise<AttemptOutcome> {
    const ctx = this.ctx;
    const attempt = c.attempts + 1;
    let secrets: string[] | undefined;
    try {
      secrets = await this.secretsOf(c.endpointId);
    } catch (e) {
      this.secretUnreadable(c.endpointId, e);
    }
    const policy: TargetPolicy = {
      environment: c.environment,
      allowLocalhostInSandbox: ctx.config.webhooks.allow_localhost_in_sandbox,
    };
    // Signed at the moment of sending: a retry carries a fresh timestamp and signature.
    const t = unix(ctx.clock);
    const started = performance.now();
    let responseStatus: number | null = null;
    let error: string | null = null;
    let retryAfter: number | undefined;
    let cause = 'network';
    // The history shows developers only what their own endpoint did; why a target was refused or
    // could not be reached (addresses, errno) is in the server log.
    let detail: string | undefined;
    // Where the URL points is checked by the connection itself (a literal, or every resolved address).
    const problem = urlProblem(c.url, policy);
    if (problem) {
      error = TARGET_NOT_ALLOWED;
      detail = `url ${problem}`;
      cause = 'refused_address';
    } else if (secrets === undefined) {
      // A failed attempt like any other, so the delivery waits for its next step instead of being
      // claimed again at once (which spun the dispatcher); the reason itself is only in the log.
      error = 'signing secret unavailable';
      cause = 'secret_unavailable';
    } else if (secrets.length === 0) {
      error = 'no valid signing secret';
      cause = 'no_secret';
    } else {
      try {
        const res = await postOnce({
          url: c.url,
          body: c.body,
          timeoutMs: ctx.config.webhooks.timeout,
          checkAddress: (address) => addressProblem(address, policy),
          headers: {
            'Content-Type': 'application/json',
            'User-Agent': USER_AGENT,
            'service-event-id': c.eventId,
            'service-event-type': c.eventType,
            'service-signature': await signatureHeader(t, c.body, secrets),
          },
        });
        responseStatus = res.status;
        if (res.status >= 200 && res.status < 300) cause = 'none';
        else if (res.status >= 300 && res.status < 400) {
          // Following a redirect would send the signed event somewhere nobody registered.
          error = `redirect (${res.status}) not followed${res.headers.location ? ` to ${res.headers.location}` : ''}`;
          cause = 'redirect';
        } else {
          error = `HTTP ${res.status}`;
          cause = 'status';
          if (res.status === 429 || res.status === 503)
            retryAfter = parseRetryAfter(res.headers['retry-after'], ctx.clock.now());
        }
      } catch (e) {
        detail = String((e as Error)?.message ?? e);
        cause = e instanceof OutboundError ? e.kind : 'network';
        error =
          cause === 'timeout'
            ? `timed out after ${ctx.config.webhooks.timeout} ms`
            : cause === 'refused_address'
              ? TARGET_NOT_ALLOWED
              : TARGET_UNREACHABLE;
      }
    }
    if (detail)
      ctx.log.warn('webhook target failed', {
        eventId: c.eventId,
        endpointId: c.endpointId,
        attempt,
        error,
        detail,
      });
    const durationMs = Math.round(performance.now() - started);
    this.metrics.duration.observe({}, durationMs / 1000);

    // Times are recorded at the end of the attempt, from the same clock that schedules the next one.
    const end = unix(ctx.clock);
    let status: AttemptStatus;
    let nextAttemptAt: number | null = null;
    if (error === null) {
      status = 'delivered';
      this.metrics.delivered.inc();
    } else {
      const delay = nextDelay(attempt, retryAfter);
      if (delay === undefined || attempt >= MAX_ATTEMPTS) {
        status = 'failed';
        this.metrics.failed.inc();
      } else {
        status = 'retrying';
        nextAttemptAt = end + delay;
        this.metrics.retried.inc({ cause });
      }
    }
    this.deliveries.recordAttempt(c, {
      id: randomId('wa_'),
      attempt,
      status,
      responseStatus,
      error,
      durationMs,
      attemptedAt: t,
      nextAttemptAt,
    });
    if (status === 'failed')
      ctx.log.warn('webhook delivery failed', { eventId: c.eventId, endpointId: c.endpointId, error });
    return {
      deliveryId: c.id,
      eventId: c.eventId,
      endpointId: c.endpointId,
      attempt,
      status,
      responseStatus,
      error,
    };
  }

  /** When each endpoint's unreadable secret was last logged, in unix seconds. */
  private readonly secretLogged = new Map<string, number>();

  /** Logged at most once per endpoint per minute, however many of its deliveries come due. */
  private secretUnreadable(endpointId: string, e: unknown): void {
    const now = unix(this.ctx.clock);
    const last = this.secretLogged.get(endpointId);
    if (last !== undefined && now - last < SECRET_LOG_INTERVAL_SECONDS) return;
    if (this.secretLogged.size > 1000) this.secretLogged.clear();
    this.secretLogged.set(endpointId, now);
    this.ctx.log.error('webhook signing secret unreadable', { endpointId, error: String(e) });
  }

  /** Opened secrets by row id: which rows are valid is read from the database on every attempt. */
  private readonly opened = new Map<string, Promise<string>>();

  private async secretsOf(endpointId: string): Promise<string[]> {
    const rows = this.endpoints.validSecrets(endpointId, unix(this.ctx.clock));
    if (this.opened.size > 1000) this.opened.clear();
    return Promise.all(
      rows.map((r) => {
        const key = `${r.id}:${r.ciphertext}`;
        let p = this.opened.get(key);
        if (!p) {
          p = sealedSecrets(this.ctx.config, 'webhook secrets').open(r.id, r.ciphertext);
          p.catch(() => this.opened.delete(key));
          this.opened.set(key, p);
        }
        return p;
      }),
    );
  }
}

/**
 * A lease outlives the longest attempt (the request timeout plus time to sign and record it), so a
 * live attempt is never taken over by another process.
 */
export function leaseSeconds(leaseMs: number, timeoutMs: number): number {
  return Math.ceil(Math.max(leaseMs, timeoutMs + 2000) / 1000);
}

/** The context's dispatcher, and whether it listens for the outbox's wake-ups yet. */
const DISPATCHER = slot(() => ({ dispatcher: undefined as Dispatcher | undefined, started: false }));

export function dispatcherFor(ctx: AppContext): Dispatcher {
  const state = ctx.caches.get(DISPATCHER);
  state.dispatcher ??= new Dispatcher(ctx);
  return state.dispatcher;
}

/** Everything due now, attempted and recorded; what the scheduled job does and what tests call. */
export function dispatchDue(ctx: AppContext): Promise<AttemptOutcome[]> {
  return dispatcherFor(ctx).drain();
}

/**
 * The serving process's dispatcher: woken at once when this process commits queued deliveries (the
 * outbox's `webhooks` signal), and by the scheduled job for retries and for events queued by other
 * processes such as the CLI.
 */
export function startDispatcher(ctx: AppContext): Dispatcher {
  const d = dispatcherFor(ctx);
  const state = ctx.caches.get(DISPATCHER);
  if (!state.started) {
    state.started = true;
    ctx.signals.on('webhooks', (n) => {
      d.countQueued(n);
      d.wake();
    });
  }
  return d;
}
