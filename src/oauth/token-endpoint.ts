import { type SecurityEventFields, securityEvent } from '../audit/security-events.ts';
import type { AppContext } from '../context.ts';
import { OAuthError } from '../errors.ts';
import { addressKey } from '../http/address-key.ts';
import { BODY_LIMITS, readTextWithin } from '../http/body-limit.ts';
import { corsForClient } from '../http/cors.ts';
import { tokenError } from '../http/errors.ts';
import {
  countRequest,
  type RateLimitScope,
  rateLimitExceeded,
  rateLimitHeaders,
} from '../http/rate-limit.ts';
import { clientAddress, recordFinished } from '../http/request-context.ts';
import type { ConnInfo } from '../platform/listen.ts';
import { clientRegistry, type OAuthClient } from './client.store.ts';
import { authenticateClient, readClientCredentials } from './client-auth.ts';
import { exchangeCode } from './token.ts';
import { parseTokenBody } from './token-body.ts';

const ROUTE = '/v1/oauth/token';

export type PlainHandler = (req: Request, conn: ConnInfo | undefined) => Promise<Response>;

/**
 * POST /v1/oauth/token as a plain fetch handler. The listener serves it ahead of hono (a native route
 * under Bun) and hono mounts the same handler for everything else that calls the app (Node, Deno, tests).
 * The endpoint is bound by its RS256 signature, and hono's routing, context and response objects
 * cost about as much as all of its database work; so it does the app middleware's steps itself, in
 * the same order and with the same functions: request id and client address, body limit, the OAuth
 * rate limit (at the limit of the client once it authenticated), the exchange, then metrics.
 */
export function tokenEndpoint(ctx: AppContext): PlainHandler {
  const ownOrigin = new URL(ctx.config.server.base_url).origin;
  return async function token(req, conn) {
    const start = performance.now();
    const requestId = crypto.randomUUID();
    const ip = clientAddress(ctx, conn?.ip, (name) => req.headers.get(name));
    const headers: Record<string, string> = {
      'Content-Type': 'application/json',
      'X-Request-Id': requestId,
      'Cache-Control': 'no-store',
      Pragma: 'no-cache',
      Vary: 'Origin',
    };
    // Filled in as the exchange learns who is asking, for its one `token.*` log line.
    const event: SecurityEventFields = { requestId };
    let res: Response;
    try {
      const text = await readTextWithin(req, BODY_LIMITS.oauth);
      if (text === undefined) throw new OAuthError('invalid_request', 'The request body is too large.', 413);
      res = Response.json(await exchange(ctx, req, text, ip, ownOrigin, headers, event), { headers });
      securityEvent(ctx, 'token.issued', event);
    } catch (e) {
      const t = tokenError(e, ctx.log, requestId);
      res = Response.json(t.body, { status: t.status, headers: { ...headers, ...t.headers } });
      securityEvent(ctx, 'token.refused', { ...event, error: t.body.error });
    }
    recordFinished(ctx, { route: ROUTE, method: req.method, status: res.status, requestId, start });
    return res;
  };
}

/**
 * The exchange itself; the rate-limit headers go into `headers` as soon as the request is counted, and
 * the CORS headers as soon as the client is known.
 */
async function exchange(
  ctx: AppContext,
  req: Request,
  text: string,
  ip: string,
  ownOrigin: string,
  headers: Record<string, string>,
  event: SecurityEventFields,
): Promise<object> {
  const clients = clientRegistry(ctx);
  let body: Record<string, string> | undefined;
  let authenticated: OAuthClient | undefined;
  let bodyError: unknown;
  let credentialsError: unknown;
  try {
    body = parseTokenBody(req.headers.get('content-type') ?? undefined, text);
    try {
      const credentials = readClientCredentials(req.headers.get('authorization') ?? undefined, body);
      event.clientId = credentials.clientId;
      const client = clients.client(credentials.clientId);
      if (client) {
        Object.assign(event, { applicationId: client.applicationId, environment: client.environment });
        // A page of an origin the client did not register gets no further than naming the client.
        const cors = corsForClient(req, ownOrigin, () => clients.webOrigins(client.environmentId));
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
  // Counted once, before anything is refused, at the limit of the client only if it authenticated:
  // naming a client is not being it. (Authenticating first costs one SHA-256 against cached secrets;
  // its failure is raised after the count.)
  const hit = await countRequest(ctx, 'oauth', addressKey(ip), chargedScope(authenticated));
  Object.assign(headers, rateLimitHeaders(hit));
  if (!hit.allowed) throw rateLimitExceeded(hit);
  if (!body) throw bodyError;
  if (!body.grant_type) throw new OAuthError('invalid_request', 'The grant_type parameter is required.');
  if (!authenticated) throw credentialsError;
  if (body.grant_type !== 'authorization_code')
    throw new OAuthError('unsupported_grant_type', 'Only the authorization_code grant is supported.');
  return exchangeCode(ctx, authenticated, body, event);
}

/**
 * The limit an authenticated client's requests count at: its environment's and plan's. A public
 * client cannot authenticate (anyone may name it), so it counts at the default.
 */
const chargedScope = (client: OAuthClient | undefined): RateLimitScope | undefined =>
  client?.type === 'confidential' ? { environment: client.environment, plan: client.plan } : undefined;

const originNotAllowed = (req: Request) =>
  new OAuthError(
    'invalid_request',
    `The origin ${req.headers.get('origin')} is not an allowed web origin of this client.`,
  );
