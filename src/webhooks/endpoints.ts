import { writtenAsParsed } from '../apps/redirect-uri-rules.ts';
import { recordAudit } from '../audit/audit.store.ts';
import type { AppContext } from '../context.ts';
import { randomId, randomToken } from '../crypto/tokens.ts';
import type { Environment } from '../environment.ts';
import { ApiError, NotFoundError, ValidationError } from '../errors.ts';
import { sealedSecrets } from '../keys/instance-secrets.ts';
import { isoTime, unix } from '../platform/clock.ts';
import { resolveHost } from '../platform/outbound-http.ts';
import { assertApplicationAccess, type DeveloperPrincipal } from './access.ts';
import { createEndpointStore, type WebhookEndpoint } from './endpoint.store.ts';
import { EVENT_TYPES, type EventType } from './events.ts';
import { enqueueEvent } from './outbox.store.ts';
import {
  addressProblem,
  hostProblem,
  TARGET_NOT_ALLOWED,
  type TargetPolicy,
  urlHost,
  urlProblem,
} from './target-url.ts';

/** Endpoints per application environment: enough for fan-out, few enough to bound work per event. */
export const MAX_ENDPOINTS = 16;
export const MAX_DESCRIPTION = 500;
export const DEFAULT_OVERLAP_SECONDS = 86_400;
export const MAX_OVERLAP_SECONDS = 7 * 86_400;
const RESOLVE_TIMEOUT_MS = 3000;

/** The endpoint as the API and the portal show it (never with its secret). */
export interface EndpointView {
  id: string;
  url: string;
  events: EventType[];
  environment: Environment;
  description: string;
  enabled: boolean;
  status: 'enabled' | 'disabled';
  createdAt: string;
  updatedAt: string;
}

export function endpointView(e: WebhookEndpoint): EndpointView {
  return {
    id: e.id,
    url: e.url,
    events: e.events,
    environment: e.environment,
    description: e.description,
    enabled: e.enabled,
    status: e.enabled ? 'enabled' : 'disabled',
    createdAt: isoTime(e.createdAt),
    updatedAt: isoTime(e.updatedAt),
  };
}

export interface CreateEndpointInput {
  url: string;
  events: string[];
  /** Defaults to the principal's environment; any other value is refused. */
  environment?: string;
  description?: string;
}

export interface UpdateEndpointInput {
  url?: string;
  events?: string[];
  enabled?: boolean;
  description?: string;
}

const newSecret = () => randomToken('whsec_');

function policyFor(ctx: AppContext, environment: Environment): TargetPolicy {
  return { environment, allowLocalhostInSandbox: ctx.config.webhooks.allow_localhost_in_sandbox };
}

/**
 * The registration-time check of a target: the URL's own rules, then where it points and every address
 * its host resolves to. A name that does not resolve yet is accepted; the connection-time check still
 * applies to whatever it resolves to later. A refused target is only "target not allowed" for the
 * developer; the log says why.
 */
export async function checkTarget(ctx: AppContext, url: string, policy: TargetPolicy): Promise<void> {
  const invalid = (problem: string) =>
    new ValidationError(`url ${problem}`, [{ path: 'url', message: problem }]);
  const problem = urlProblem(url, policy);
  if (problem) throw invalid(problem);
  const refuse = (detail: string) => {
    ctx.log.warn('webhook target refused', { detail });
    return invalid(TARGET_NOT_ALLOWED);
  };
  const pointsAt = hostProblem(url, policy);
  if (pointsAt) throw refuse(pointsAt);
  // Deliveries go to the URL as the parser writes it; another spelling would show another address.
  const parsed = new URL(url);
  if (!writtenAsParsed(url, parsed)) throw invalid(`must be written as it is called: ${parsed.href}`);
  const host = urlHost(parsed);
  let addresses: string[] = [];
  try {
    addresses = await withTimeout(resolveHost(host), RESOLVE_TIMEOUT_MS);
  } catch {
    return;
  }
  for (const a of addresses) {
    const p = addressProblem(a, policy);
    if (p) throw refuse(`${host} resolves to ${a}: ${p}`);
  }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('timed out')), ms);
    p.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
}

function checkEvents(events: string[]): EventType[] {
  const unknown = events.filter((e) => !(EVENT_TYPES as readonly string[]).includes(e));
  if (unknown.length)
    throw new ValidationError(`unknown event kinds: ${unknown.join(', ')}`, [
      {
        path: 'events',
        message: `unknown event kinds: ${unknown.join(', ')} (known: ${EVENT_TYPES.join(', ')})`,
      },
    ]);
  if (events.length === 0)
    throw new ValidationError('select at least one event', [
      { path: 'events', message: 'must list at least one event kind' },
    ]);
  return [...new Set(events)] as EventType[];
}

function checkDescription(description: string | undefined): string {
  const d = (description ?? '').trim();
  if (/\p{Cc}/u.test(d))
    throw new ValidationError('description has control characters', [
      { path: 'description', message: 'must not contain control characters' },
    ]);
  if (d.length > MAX_DESCRIPTION)
    throw new ValidationError('description too long', [
      { path: 'description', message: `must be at most ${MAX_DESCRIPTION} characters` },
    ]);
  return d;
}

function findOwned(
  ctx: AppContext,
  dev: DeveloperPrincipal,
  applicationId: string,
  endpointId: string,
): WebhookEndpoint {
  assertApplicationAccess(ctx.db, dev, applicationId);
  const e = createEndpointStore(ctx.db).findIn(applicationId, dev.environment, endpointId);
  if (!e) throw new NotFoundError('No such webhook endpoint.');
  return e;
}

/** Adds an endpoint and issues its signing secret, returned here once and never again. */
export async function createEndpoint(
  ctx: AppContext,
  dev: DeveloperPrincipal,
  applicationId: string,
  input: CreateEndpointInput,
): Promise<EndpointView & { secret: string }> {
  assertApplicationAccess(ctx.db, dev, applicationId);
  if (input.environment !== undefined && input.environment !== dev.environment)
    throw new ValidationError('environment does not match the credentials', [
      { path: 'environment', message: `must be "${dev.environment}", the environment of the API key` },
    ]);
  const events = checkEvents(input.events);
  const description = checkDescription(input.description);
  await checkTarget(ctx, input.url, policyFor(ctx, dev.environment));

  const now = unix(ctx.clock);
  const endpoint: WebhookEndpoint = {
    id: randomId('we_'),
    applicationId,
    environment: dev.environment,
    url: input.url,
    events,
    description,
    enabled: true,
    createdAt: now,
    updatedAt: now,
  };
  const secret = newSecret();
  const secretId = randomId('whs_');
  const sealed = await sealedSecrets(ctx.config, 'webhook secrets').seal(secretId, secret);
  const store = createEndpointStore(ctx.db);
  ctx.db.sql.transaction(() => {
    dev.assertActing?.();
    if (store.count(applicationId, dev.environment) >= MAX_ENDPOINTS)
      throw new ApiError(
        'ENDPOINT_LIMIT_REACHED',
        `An application environment may have at most ${MAX_ENDPOINTS} webhook endpoints.`,
        409,
      );
    store.insert(endpoint);
    store.insertSecret({
      id: secretId,
      endpoint_id: endpoint.id,
      ciphertext: sealed,
      created_at: now,
      expires_at: null,
    });
    recordAudit(ctx.db, ctx.clock, {
      actor: `developer:${dev.developerId}`,
      action: 'webhook_endpoint.create',
      target: endpoint.id,
      details: { applicationId, environment: dev.environment, url: endpoint.url, events },
    });
  });
  return { ...endpointView(endpoint), secret };
}

export function listEndpoints(
  ctx: AppContext,
  dev: DeveloperPrincipal,
  applicationId: string,
): EndpointView[] {
  assertApplicationAccess(ctx.db, dev, applicationId);
  return createEndpointStore(ctx.db).list(applicationId, dev.environment).map(endpointView);
}

export function getEndpoint(
  ctx: AppContext,
  dev: DeveloperPrincipal,
  applicationId: string,
  endpointId: string,
): EndpointView {
  return endpointView(findOwned(ctx, dev, applicationId, endpointId));
}

export async function updateEndpoint(
  ctx: AppContext,
  dev: DeveloperPrincipal,
  applicationId: string,
  endpointId: string,
  input: UpdateEndpointInput,
): Promise<EndpointView> {
  const current = findOwned(ctx, dev, applicationId, endpointId);
  const next: WebhookEndpoint = { ...current, updatedAt: unix(ctx.clock) };
  if (input.events !== undefined) next.events = checkEvents(input.events);
  if (input.description !== undefined) next.description = checkDescription(input.description);
  if (input.enabled !== undefined) next.enabled = input.enabled;
  if (input.url !== undefined && input.url !== current.url) {
    await checkTarget(ctx, input.url, policyFor(ctx, current.environment));
    next.url = input.url;
  }
  const store = createEndpointStore(ctx.db);
  ctx.db.sql.transaction(() => {
    dev.assertActing?.();
    if (!store.findIn(applicationId, dev.environment, endpointId))
      throw new NotFoundError('No such webhook endpoint.');
    store.update(next);
    recordAudit(ctx.db, ctx.clock, {
      actor: `developer:${dev.developerId}`,
      action: 'webhook_endpoint.update',
      target: endpointId,
      details: {
        applicationId,
        changed: Object.keys(input).filter((k) => (input as Record<string, unknown>)[k] !== undefined),
      },
    });
  });
  return endpointView(next);
}

export function deleteEndpoint(
  ctx: AppContext,
  dev: DeveloperPrincipal,
  applicationId: string,
  endpointId: string,
): void {
  findOwned(ctx, dev, applicationId, endpointId);
  ctx.db.sql.transaction(() => {
    createEndpointStore(ctx.db).delete(endpointId);
    recordAudit(ctx.db, ctx.clock, {
      actor: `developer:${dev.developerId}`,
      action: 'webhook_endpoint.delete',
      target: endpointId,
      details: { applicationId },
    });
  });
}

/**
 * Issues a new signing secret. The current one stays valid for `expireCurrentInSeconds` (default one
 * day, 0 = end it now), and every delivery in that overlap carries a signature by each, so a receiver
 * can switch without dropping one. Any older secret ends now: at most two are valid, since each
 * delivery signs with every valid one.
 */
export async function rotateSecret(
  ctx: AppContext,
  dev: DeveloperPrincipal,
  applicationId: string,
  endpointId: string,
  input: { expireCurrentInSeconds?: number } = {},
): Promise<{ id: string; secret: string; previousSecretExpiresAt: string }> {
  const overlap = input.expireCurrentInSeconds ?? DEFAULT_OVERLAP_SECONDS;
  if (!Number.isInteger(overlap) || overlap < 0 || overlap > MAX_OVERLAP_SECONDS)
    throw new ValidationError('invalid overlap', [
      {
        path: 'expireCurrentInSeconds',
        message: `must be a whole number of seconds from 0 to ${MAX_OVERLAP_SECONDS}`,
      },
    ]);
  findOwned(ctx, dev, applicationId, endpointId);
  const now = unix(ctx.clock);
  const secret = newSecret();
  const secretId = randomId('whs_');
  const sealed = await sealedSecrets(ctx.config, 'webhook secrets').seal(secretId, secret);
  const store = createEndpointStore(ctx.db);
  ctx.db.sql.transaction(() => {
    dev.assertActing?.();
    if (!store.findIn(applicationId, dev.environment, endpointId))
      throw new NotFoundError('No such webhook endpoint.');
    store.retireSecrets(endpointId, now, now + overlap);
    store.insertSecret({
      id: secretId,
      endpoint_id: endpointId,
      ciphertext: sealed,
      created_at: now,
      expires_at: null,
    });
    recordAudit(ctx.db, ctx.clock, {
      actor: `developer:${dev.developerId}`,
      action: 'webhook_secret.rotate',
      target: endpointId,
      details: { applicationId, expireCurrentInSeconds: overlap },
    });
  });
  return { id: endpointId, secret, previousSecretExpiresAt: isoTime(now + overlap) };
}

/** Queues a `webhook.test` event for this endpoint only. */
export function sendTestEvent(
  ctx: AppContext,
  dev: DeveloperPrincipal,
  applicationId: string,
  endpointId: string,
): { eventId: string } {
  const endpoint = findOwned(ctx, dev, applicationId, endpointId);
  if (!endpoint.enabled)
    throw new ApiError('ENDPOINT_DISABLED', 'The endpoint is disabled; enable it to send a test event.', 409);
  const envelope = ctx.db.sql.transaction(() =>
    enqueueEvent(ctx, {
      type: 'webhook.test',
      applicationId,
      environment: endpoint.environment,
      endpointId,
      data: { endpointId },
    }),
  );
  return { eventId: envelope.id };
}

/** Destroys secrets whose overlap has ended. */
export function deleteExpiredSecrets(ctx: AppContext, now: number): number {
  return createEndpointStore(ctx.db).deleteExpiredSecrets(now);
}
