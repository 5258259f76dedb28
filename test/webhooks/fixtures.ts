import { createApp } from '../../src/app.ts';
import { setApplicationFields } from '../../src/apps/application.store.ts';
import type { AppContext } from '../../src/context.ts';
import { createApiKey } from '../../src/developer/api-key.store.ts';
import { createDeveloper } from '../../src/developer/developer.store.ts';
import type { DeveloperPrincipal } from '../../src/webhooks/access.ts';
import { createEndpoint } from '../../src/webhooks/endpoints.ts';
import type { EventEnvelope, EventType } from '../../src/webhooks/events.ts';
import { enqueueEvent } from '../../src/webhooks/outbox.store.ts';
import { verifyWebhook } from '../../src/webhooks/verify.ts';
import { createTestApp } from '../helpers/apps.ts';

export interface Owner {
  developerId: string;
  applicationId: string;
  sandboxKey: string;
  productionKey: string;
  sandbox: DeveloperPrincipal;
  production: DeveloperPrincipal;
}

let n = 0;

/** A developer owning an application with both environments, and an API key for each. */
export async function owner(ctx: AppContext, opts: { production?: boolean } = {}): Promise<Owner> {
  const { developerId } = createDeveloper(ctx.db, ctx.clock, {
    email: `dev${++n}-${crypto.randomUUID()}@example.com`,
  });
  const app = await createTestApp(ctx, {
    type: 'confidential',
    redirectUris: ['https://app.example/callback'],
    scopes: 'openid',
  });
  if (opts.production !== false)
    await createTestApp(ctx, {
      type: 'confidential',
      redirectUris: ['https://app.example/callback'],
      scopes: 'openid',
      environment: 'production',
      applicationId: app.applicationId,
    });
  setApplicationFields(ctx.db, app.applicationId, { ownerDeveloperId: developerId });
  const sandboxKey = (await createApiKey(ctx.db, ctx.clock, developerId, 'sandbox')).key;
  const productionKey = (await createApiKey(ctx.db, ctx.clock, developerId, 'production')).key;
  return {
    developerId,
    applicationId: app.applicationId,
    sandboxKey,
    productionKey,
    sandbox: { developerId, environment: 'sandbox' },
    production: { developerId, environment: 'production' },
  };
}

export interface Received {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

export type Responder = (req: Received) => Response | Promise<Response>;

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  respond: Responder;
  stop(): Promise<void>;
}

/** A real HTTP receiver on a loopback port that records every request and answers with `respond`. */
export function receiver(respond: Responder = () => new Response('ok')): Receiver {
  const r: Receiver = {
    url: '',
    port: 0,
    received: [],
    respond,
    stop: async () => {},
  };
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    idleTimeout: 30,
    async fetch(req) {
      const rec: Received = {
        method: req.method,
        path: new URL(req.url).pathname,
        headers: Object.fromEntries(req.headers),
        body: await req.text(),
      };
      r.received.push(rec);
      return r.respond(rec);
    },
  });
  r.port = server.port!;
  r.url = `http://localhost:${server.port}/hook`;
  r.stop = async () => {
    await server.stop(true);
  };
  return r;
}

/** Receivers started during a test; call `stopAll` in `afterEach`. */
export function receiverPool() {
  const started: Receiver[] = [];
  return {
    start(respond?: Responder): Receiver {
      const r = receiver(respond);
      started.push(r);
      return r;
    },
    async stopAll(): Promise<void> {
      for (const r of started.splice(0)) await r.stop();
    },
  };
}

/** A sandbox `consent.granted` or `consent.revoked` event of the owner's application, committed. */
export function enqueueConsentEvent(
  ctx: AppContext,
  o: Owner,
  type: 'consent.granted' | 'consent.revoked',
): EventEnvelope {
  const data = {
    consentId: crypto.randomUUID(),
    applicationId: o.applicationId,
    environment: 'sandbox' as const,
    sub: 'sub-1',
    scopes: ['openid'],
    purpose: 'Sign in',
    at: ctx.clock.now().toISOString(),
  };
  return ctx.db.sql.transaction(() =>
    type === 'consent.granted'
      ? enqueueEvent(ctx, {
          type,
          applicationId: o.applicationId,
          environment: 'sandbox',
          data,
        })
      : enqueueEvent(ctx, {
          type,
          applicationId: o.applicationId,
          environment: 'sandbox',
          data: { ...data, reason: 'revoked_by_person' },
        }),
  );
}

/** An endpoint of the owner's sandbox (the config must allow localhost) with its secret. */
export async function sandboxEndpoint(
  ctx: AppContext,
  o: Owner,
  url: string,
  events: EventType[] = ['consent.granted', 'consent.revoked'],
) {
  return createEndpoint(ctx, o.sandbox, o.applicationId, { url, events });
}

/** Verifies one received request as an integrator would, with the secrets it knows. */
export function verify(rec: Received, secrets: string[], now: Date) {
  return verifyWebhook({
    rawBody: rec.body,
    signatureHeader: rec.headers['service-signature'],
    secrets,
    now,
  });
}

export const LOCALHOST_OK = '[webhooks]\nallow_localhost_in_sandbox = true';

export interface ApiResult {
  status: number;
  headers: Headers;
  json: any;
}

/** Calls the developer API in process (no socket) with a Bearer key. */
export function developerApi(ctx: AppContext) {
  const app = createApp(ctx);
  return async (
    method: string,
    path: string,
    key: string | undefined,
    body?: unknown,
  ): Promise<ApiResult> => {
    const headers: Record<string, string> = {};
    if (key !== undefined) headers.Authorization = `Bearer ${key}`;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await app.request(
      `http://localhost${path}`,
      {
        method,
        headers,
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      },
      { ip: '127.0.0.1' },
    );
    const text = await res.text();
    return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : undefined };
  };
}

export const hooksPath = (applicationId: string) => `/v1/developer/applications/${applicationId}/webhooks`;

/**
 * Tampers with every stored signing secret of an endpoint in raw SQL, as someone editing the database
 * file would: the last bytes of each AES-GCM tag change, so no secret opens any more.
 */
export function tamperSecrets(ctx: AppContext, endpointId: string): void {
  const changed = ctx.db.sql
    .prepare(
      `UPDATE webhook_secrets SET ciphertext = substr(ciphertext, 1, length(ciphertext) - 4) ||
         CASE WHEN substr(ciphertext, -4) = 'AAAA' THEN 'BBBB' ELSE 'AAAA' END
       WHERE endpoint_id = ?`,
    )
    .run(endpointId).changes;
  if (changed === 0) throw new Error(`endpoint ${endpointId} has no secret to tamper with`);
}
