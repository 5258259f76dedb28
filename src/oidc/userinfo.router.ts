import { createBearerGuard } from '../auth/bearer.ts';
import type { AppContext } from '../context.ts';
import { BODY_LIMITS, payloadTooLarge, readTextWithin } from '../http/body-limit.ts';
import { clientAddress } from '../http/client-address.ts';
import type { WebOriginsOf } from '../http/cors.ts';
import { plainApiErrorResponse } from '../http/errors.ts';
import { recordFinished } from '../http/request-context.ts';
import type { PlainHandler, Routes } from '../platform/listen.ts';
import { userinfoFor } from './userinfo.ts';

const ROUTE = '/v1/userinfo';

/**
 * GET/POST /v1/userinfo (OIDC Core §5.3: both methods; POST may carry the token in a form body), served
 * ahead of hono as the token endpoint is (oauth/token-endpoint.ts): a UserInfo request is a few indexed
 * reads, and hono's routing, context and middleware cost as much. It does the app middleware's steps
 * itself, with the same functions: request id and client address, the body limit, the bearer guard
 * (rate limit and CORS included), then metrics. Preflights and other methods still reach the app.
 */
export function userinfoRoutes(ctx: AppContext, webOriginsOf: WebOriginsOf): Routes {
  const guard = createBearerGuard(ctx, webOriginsOf);
  const userinfo: PlainHandler = async (req, conn) => {
    const start = performance.now();
    const requestId = crypto.randomUUID();
    const headers: Record<string, string> = { 'X-Request-Id': requestId };
    let res: Response;
    try {
      // Looked up only for a request without a valid token (its rate-limit key).
      const ip = () => clientAddress(ctx.config, conn?.ip, (name) => req.headers.get(name));
      const body = async () => {
        const text = await readTextWithin(req, BODY_LIMITS.other);
        if (text === undefined) throw payloadTooLarge();
        return text;
      };
      const grant = await guard({ req, ip, body }, headers);
      res = Response.json(await userinfoFor(ctx, grant), { headers });
    } catch (e) {
      res = plainApiErrorResponse(e, ctx.log, requestId, headers);
    }
    recordFinished(ctx, { route: ROUTE, method: req.method, status: res.status, requestId, start });
    return res;
  };
  return { [ROUTE]: { GET: userinfo, POST: userinfo } };
}
