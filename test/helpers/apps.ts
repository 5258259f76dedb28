import { insertApplication, insertEnvironment } from '../../src/apps/application.store.ts';
import { CLIENT_SECRET_PREFIX } from '../../src/apps/credential-prefixes.ts';
import type { AppContext } from '../../src/context.ts';
import { randomId, randomToken, sha256Hex } from '../../src/crypto/tokens.ts';
import type { Environment } from '../../src/environment.ts';
import type { SigningAlg } from '../../src/keys/signing-algs.ts';
import { unix } from '../../src/platform/clock.ts';
import { createEndpointStore } from '../../src/webhooks/endpoint.store.ts';
import { EVENT_TYPES } from '../../src/webhooks/events.ts';

export interface TestAppOptions {
  type: 'confidential' | 'public';
  redirectUris: string[];
  /** Origins allowed to call the token, UserInfo and documents endpoints from a browser (normalised). */
  webOrigins?: string[];
  /** Enabled scopes of the environment (array or space-separated). */
  scopes: string[] | string;
  pkce?: 'required' | 'public-only';
  environment?: 'sandbox' | 'production';
  name?: string;
  plan?: string;
  /** Add this environment to an existing application instead of creating one. */
  applicationId?: string;
  /** Use this exact client secret (e.g. one with ':', '+', '%' or spaces) instead of a random one. */
  clientSecret?: string;
  /** `id_token_signed_response_alg`; RS256 when unset. */
  idTokenAlg?: SigningAlg;
  /** Subscribe an endpoint to every event kind (see `subscribeTestEndpoint`). */
  subscribed?: boolean;
}

export interface TestApp {
  applicationId: string;
  environmentId: string;
  clientId: string;
  /** Only for confidential clients. */
  clientSecret?: string;
}

/**
 * Writes an application environment with its redirect URIs and (for confidential clients) a secret
 * through the application store, bypassing registration rules so tests can build any shape they need.
 */
export async function createTestApp(ctx: AppContext, opts: TestAppOptions): Promise<TestApp> {
  const environment = opts.environment ?? 'sandbox';
  const now = unix(ctx.clock);
  const scopes = Array.isArray(opts.scopes) ? opts.scopes : opts.scopes.split(' ').filter(Boolean);
  const applicationId = opts.applicationId ?? randomId('app_');
  const clientSecret =
    opts.type === 'confidential'
      ? (opts.clientSecret ?? randomToken(CLIENT_SECRET_PREFIX[environment]))
      : undefined;
  const secretHash = clientSecret === undefined ? undefined : await sha256Hex(clientSecret);
  const env = ctx.db.sql.transaction(() => {
    if (!opts.applicationId)
      insertApplication(ctx.db, {
        id: applicationId,
        name: opts.name ?? 'Test App',
        type: opts.type,
        pkce: opts.pkce ?? 'required',
        plan: opts.plan ?? 'default',
        createdAt: now,
        updatedAt: now,
      });
    return insertEnvironment(ctx.db, ctx.clock, {
      applicationId,
      environment,
      scopes,
      redirectUris: opts.redirectUris,
      webOrigins: opts.webOrigins ?? [],
      documentTypes: [],
      documentCountries: [],
      idTokenSignedResponseAlg: opts.idTokenAlg,
      secretHash,
    });
  });
  if (opts.subscribed) subscribeTestEndpoint(ctx, applicationId, environment);
  return {
    applicationId,
    environmentId: env.id,
    clientId: env.clientId,
    ...(clientSecret === undefined ? {} : { clientSecret }),
  };
}

/**
 * Subscribes an endpoint of the application environment to every event kind. An event no endpoint
 * takes is not stored, so a test that reads `webhook_events` needs one. Nothing is sent: the endpoint
 * has no signing secret and its host does not resolve.
 */
export function subscribeTestEndpoint(
  ctx: Pick<AppContext, 'db' | 'clock'>,
  applicationId: string,
  environment: Environment = 'sandbox',
): void {
  const now = unix(ctx.clock);
  createEndpointStore(ctx.db).insert({
    id: randomId('we_'),
    applicationId,
    environment,
    url: 'https://hooks.invalid/verity',
    events: [...EVENT_TYPES],
    description: 'test subscriber',
    enabled: true,
    createdAt: now,
    updatedAt: now,
  });
}
