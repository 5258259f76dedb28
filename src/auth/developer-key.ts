import type { Context, MiddlewareHandler } from 'hono';
import type { AppContext } from '../context.ts';
import { type AuthenticatedKey, apiKeyStands, authenticateApiKey } from '../developer/api-key.store.ts';
import { ApiError } from '../errors.ts';
import type { AppEnv } from '../http/env.ts';

/** The Hono environment of developer API routes: the authenticated key is on the context. */
export interface DeveloperApiEnv extends AppEnv {
  Variables: AppEnv['Variables'] & { developer: AuthenticatedKey };
}

const CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="developer-api"' };

/**
 * `Authorization: Bearer dk_test_…|dk_live_…`, in two steps around the rate limiter so that failed
 * attempts are counted (against the client address) and answered with the rate-limit headers too:
 * `identifyDeveloper` puts a valid key on the context, `requireDeveloper` refuses the request without
 * one. A missing, malformed, unknown or revoked key, and a key of one environment presented as the
 * other, all get the same 401.
 */
export function identifyDeveloper(ctx: AppContext): MiddlewareHandler<DeveloperApiEnv> {
  return async function identifyDeveloper(c, next) {
    const m = /^Bearer[ ]+(\S+)\s*$/i.exec(c.req.header('Authorization') ?? '');
    const key = m ? await authenticateApiKey(ctx.db, ctx.clock, m[1]!) : undefined;
    if (key) c.set('developer', key);
    await next();
  };
}

export const invalidApiKey = () =>
  new ApiError('INVALID_API_KEY', 'A valid developer API key is required.', 401, undefined, CHALLENGE);

export function requireDeveloper(): MiddlewareHandler<DeveloperApiEnv> {
  return async function requireDeveloper(c, next) {
    if (!c.get('developer')) throw invalidApiKey();
    await next();
  };
}

/** Refuses the request as `requireDeveloper` does once its key has been revoked or its developer disabled. */
export function assertKeyStands(c: Context<DeveloperApiEnv>): void {
  if (!apiKeyStands(c.get('ctx').db, c.get('developer').keyId)) throw invalidApiKey();
}
