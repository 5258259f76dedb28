import type { SecurityEventFields } from '../audit/security-events.ts';
import type { AppContext } from '../context.ts';
import { OAuthError } from '../errors.ts';
import { addressKey } from '../http/address-key.ts';
import { corsForClient } from '../http/cors.ts';
import {
  countRequest,
  type RateLimitScope,
  rateLimitExceeded,
  rateLimitHeaders,
} from '../http/rate-limit.ts';
import { clientRegistry, type OAuthClient } from './client.store.ts';
import { authenticateClient, readClientCredentials } from './client-auth.ts';
import { parseTokenBody } from './token-body.ts';

export interface ClientRequest {
  body: Record<string, string>;
  client: OAuthClient;
}

/**
 * A request to an endpoint its client authenticates at (token, revocation): the body parsed, the
 * client authenticated, and the request counted once against the OAuth limit, before anything is
 * refused, at the limit of the client only if it authenticated: naming a client is not being it.
 * (Authenticating first costs one SHA-256 against cached secrets; its failure is raised after the
 * count.) The rate-limit headers go into `headers` as soon as the request is counted, and the CORS
 * headers as soon as the client is named: a page of an origin the client did not register gets no
 * further than naming it. Problems are raised in this order: the limit, the body, the missing
 * `required` parameter, the client (its origin, then its credentials).
 */
export async function clientRequest(
  ctx: AppContext,
  req: Request,
  text: string,
  ip: string,
  headers: Record<string, string>,
  required: string,
  /** The request's security event: the client is added as soon as it is named. */
  event: SecurityEventFields = {},
): Promise<ClientRequest> {
  const clients = clientRegistry(ctx);
  let body: Record<string, string> | undefined;
  let authenticated: OAuthClient | undefined;
  let bodyError: unknown;
  let credentialsError: unknown;
  try {
    body = parseTokenBody(req.headers.get('content-type') ?? undefined, text);
    try {
      const credentials = readClientCredentials(req.headers.get('authorization') ?? undefined, body);
      const client = clients.client(credentials.clientId);
      if (client) {
        // Only a client's own id is logged: what a caller sends as one may be a secret.
        Object.assign(event, {
          clientId: client.clientId,
          applicationId: client.applicationId,
          environment: client.environment,
        });
        const cors = corsForClient(req, ownOrigin(ctx), () => clients.webOrigins(client.environmentId));
        Object.assign(headers, cors.headers);
        if (!cors.allowed) throw originNotAllowed(req);
      }
      authenticated = authenticateClient(ctx, credentials, clients, client);
    } catch (e) {
      credentialsError = e;
    }
  } catch (e) {
    bodyError = e;
  }
  const hit = await countRequest(ctx, 'oauth', addressKey(ip), chargedScope(authenticated));
  Object.assign(headers, rateLimitHeaders(hit));
  if (!hit.allowed) throw rateLimitExceeded(hit);
  if (!body) throw bodyError;
  if (!body[required]) throw new OAuthError('invalid_request', `The ${required} parameter is required.`);
  if (!authenticated) throw credentialsError;
  return { body, client: authenticated };
}

/**
 * The limit an authenticated client's requests count at: its environment's and plan's. A public
 * client cannot authenticate (anyone may name it), so it counts at the default.
 */
const chargedScope = (client: OAuthClient | undefined): RateLimitScope | undefined =>
  client?.type === 'confidential' ? { environment: client.environment, plan: client.plan } : undefined;

const origins = new WeakMap<AppContext, string>();
function ownOrigin(ctx: AppContext): string {
  let o = origins.get(ctx);
  if (o === undefined) {
    o = new URL(ctx.config.server.base_url).origin;
    origins.set(ctx, o);
  }
  return o;
}

const originNotAllowed = (req: Request) =>
  new OAuthError(
    'invalid_request',
    `The origin ${req.headers.get('origin')} is not an allowed web origin of this client.`,
  );
