import type { MiddlewareHandler } from 'hono';
import type { AppContext } from '../context.ts';
import { type AuthenticatedKey, authenticateApiKey } from '../developer/api-key.store.ts';
import { ApiError } from '../errors.ts';
import type { AppEnv } from '../http/env.ts';

/** The Hono environment of developer API routes: the authenticated key is on the context. */
export interface DeveloperApiEnv extends AppEnv {
  Variables: AppEnv['Variables'] & { developer: AuthenticatedKey };
}

const CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="developer-api"' };

/**
 * `Authorization: Bearer dk_test_…|dk_live_…`. A missing, malformed, unknown or revoked key, and a key
 * of one environment presented as the other, all get the same 401.
 */
export function developerAuth(ctx: AppContext): MiddlewareHandler<DeveloperApiEnv> {
  return async function developerAuth(c, next) {
    const header = c.req.header('Authorization') ?? '';
    const m = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
    const key = m ? await authenticateApiKey(ctx.db, ctx.clock, m[1]!) : undefined;
    if (!key)
      throw new ApiError(
        'INVALID_API_KEY',
        'A valid developer API key is required.',
        401,
        undefined,
        CHALLENGE,
      );
    c.set('developer', key);
    await next();
  };
}
