import { type SecurityEventFields, securityEvent } from '../audit/security-events.ts';
import type { AppContext } from '../context.ts';
import { OAuthError } from '../errors.ts';
import { BODY_LIMITS, readTextWithin } from '../http/body-limit.ts';
import { clientAddress } from '../http/client-address.ts';
import { tokenError } from '../http/errors.ts';
import { recordFinished } from '../http/request-context.ts';
import type { PlainHandler } from '../platform/listen.ts';
import { clientRequest } from './client-request.ts';
import { exchangeCode } from './token.ts';

const ROUTE = '/v1/oauth/token';

/**
 * POST /v1/oauth/token as a plain fetch handler. The listener serves it ahead of hono (a native route
 * under Bun) and hono mounts the same handler for everything else that calls the app (Node, Deno, tests).
 * The endpoint is bound by its RS256 signature, and hono's routing, context and response objects
 * cost about as much as all of its database work; so it does the app middleware's steps itself, in
 * the same order and with the same functions: request id and client address, body limit, the OAuth
 * rate limit (at the limit of the client once it authenticated), the exchange, then metrics.
 */
export function tokenEndpoint(ctx: AppContext): PlainHandler {
  return async function token(req, conn) {
    const start = performance.now();
    const requestId = crypto.randomUUID();
    const ip = clientAddress(ctx.config, conn?.ip, (name) => req.headers.get(name));
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
      res = Response.json(await exchange(ctx, req, text, ip, headers, event), { headers });
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

/** The exchange itself; rate-limit and CORS headers go into `headers` (see clientRequest). */
async function exchange(
  ctx: AppContext,
  req: Request,
  text: string,
  ip: string,
  headers: Record<string, string>,
  event: SecurityEventFields,
): Promise<object> {
  const { body, client } = await clientRequest(ctx, req, text, ip, headers, 'grant_type', event);
  if (body.grant_type !== 'authorization_code')
    throw new OAuthError('unsupported_grant_type', 'Only the authorization_code grant is supported.');
  return exchangeCode(ctx, client, body, event);
}
