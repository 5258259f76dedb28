import { createApplication } from '../apps/registration.ts';
import type { AppContext } from '../context.ts';
import { createDeveloper, findDeveloperByEmail } from '../developer/developer.store.ts';
import { findClient, redirectUrisOf } from '../oauth/client.store.ts';
import { files } from '../platform/files.ts';
import { createEndpoint } from '../webhooks/endpoints.ts';
import { EVENT_TYPES } from '../webhooks/events.ts';
import { type DemoLock, openDemoLock } from './demo.store.ts';

/** What the demo remembers about its own sandbox application (kept 0600: it holds secrets). */
export interface DemoRegistration {
  applicationId: string;
  developerId: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  /** Requested at every sign-in (all the application may ask for). */
  scopes: string[];
  /** Absent while the server does not allow http://localhost webhook targets. */
  webhook?: { endpointId: string; url: string; secret: string };
}

export const DEMO_DEVELOPER_EMAIL = 'demo@verity.localhost';
export const DEMO_APP_NAME = 'Verity demo';
/** Everything sandbox allows that the demo pages show. */
export const DEMO_SCOPES = [
  'openid',
  'profile',
  'email',
  'age_over_18',
  'identity_verified',
  'identity_assurance_level',
  'identity_documents',
  'document_type',
  'document_issuing_country',
  'document_validity',
  'document_expiry_date',
  'document_number_masked',
];

export function registrationPath(ctx: AppContext): string {
  return files.join(files.dirname(files.resolve(ctx.config.database.path)), 'demo-app.json');
}

/** The demo's own SQLite file (sessions, transactions, webhooks), beside Verity's database. */
export function demoDatabasePath(ctx: AppContext): string {
  return files.join(files.dirname(files.resolve(ctx.config.database.path)), 'demo.db');
}

async function read(path: string): Promise<DemoRegistration | undefined> {
  const text = await files.readText(path);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as DemoRegistration;
  } catch {
    return undefined;
  }
}

/**
 * Registers the demo's sandbox application the first time and reuses it on every later start: the
 * credentials live in `demo-app.json` beside the database. A file whose application no longer exists
 * (the database was replaced) is registered afresh. The webhook endpoint is added once localhost
 * targets are allowed, which `npm start` arranges. Demo processes starting together against one
 * database take turns, so they register once and share the result.
 */
export async function ensureDemoRegistration(ctx: AppContext, demoUrl: string): Promise<DemoRegistration> {
  return withRegistrationLock(ctx, () => register(ctx, demoUrl));
}

/** How often, and how long apart, a start waits for another process's registration to finish. */
const LOCK_ATTEMPTS = 1200;
const LOCK_RETRY_MS = 25;

/**
 * Runs `fn` while holding the write lock of the demo's own database. The registration spans Verity's
 * database (application, webhook endpoint) and `demo-app.json` (the only place the secrets are kept in
 * the clear), so no single transaction covers it: two demo processes starting together would each find
 * nothing and register twice. Under the lock the second one finds the first one's file and reuses it.
 * A process that dies releases the lock with it. Waiting is a retry loop rather than SQLite's busy
 * timeout, which would block this process's event loop (and the server beside it) meanwhile, and
 * would never let a second registration in the same process reach the point where it gives way.
 */
async function withRegistrationLock<T>(ctx: AppContext, fn: () => Promise<T>): Promise<T> {
  const path = demoDatabasePath(ctx);
  await files.ensureDir(files.dirname(path));
  // A connection of its own: the lock is held across awaits, so no other statement may run on it.
  const lock = await openDemoLock(path);
  try {
    await acquire(lock);
    try {
      return await fn();
    } finally {
      lock.unlock();
    }
  } finally {
    lock.close();
  }
}

async function acquire(lock: DemoLock): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      lock.tryLock();
      return;
    } catch (e) {
      if (!isBusy(e) || attempt >= LOCK_ATTEMPTS) throw e;
      await new Promise((resolve) => setTimeout(resolve, LOCK_RETRY_MS));
    }
  }
}

const isBusy = (e: unknown) =>
  (e as { code?: unknown }).code === 'SQLITE_BUSY' || /database is locked/i.test(String(e));

async function register(ctx: AppContext, demoUrl: string): Promise<DemoRegistration> {
  const path = registrationPath(ctx);
  const redirectUri = `${demoUrl}/callback`;
  let reg = await read(path);
  const client = reg && findClient(ctx, reg.clientId);
  if (
    !reg ||
    !client ||
    client.applicationId !== reg.applicationId ||
    !redirectUrisOf(ctx, client.environmentId).includes(redirectUri)
  ) {
    const developerId =
      findDeveloperByEmail(ctx.db, DEMO_DEVELOPER_EMAIL)?.developerId ??
      createDeveloper(ctx.db, ctx.clock, { email: DEMO_DEVELOPER_EMAIL, name: 'Verity demo' }).developerId;
    const issued = await createApplication(ctx.db, ctx.clock, {
      name: DEMO_APP_NAME,
      type: 'confidential',
      redirectUris: [redirectUri],
      scopes: DEMO_SCOPES,
      ownerDeveloperId: developerId,
      actor: 'system',
    });
    reg = {
      applicationId: issued.applicationId,
      developerId,
      clientId: issued.clientId,
      clientSecret: issued.clientSecret!,
      redirectUri,
      scopes: DEMO_SCOPES,
    };
    await save(path, reg);
    ctx.log.info('demo application registered', { applicationId: reg.applicationId, clientId: reg.clientId });
  }

  const hookUrl = `${demoUrl}/webhooks/receive`;
  if ((!reg.webhook || reg.webhook.url !== hookUrl) && ctx.config.webhooks.allow_localhost_in_sandbox) {
    const endpoint = await createEndpoint(
      ctx,
      { developerId: reg.developerId, environment: 'sandbox' },
      reg.applicationId,
      { url: hookUrl, events: [...EVENT_TYPES], description: 'Verity demo receiver' },
    );
    reg = { ...reg, webhook: { endpointId: endpoint.id, url: hookUrl, secret: endpoint.secret } };
    await save(path, reg);
  }
  return reg;
}

async function save(path: string, reg: DemoRegistration): Promise<void> {
  await files.ensureDir(files.dirname(path));
  await files.writePrivateAtomic(path, `${JSON.stringify(reg, null, 2)}\n`);
}
