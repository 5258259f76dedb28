import type { Context, MiddlewareHandler } from 'hono';
import {
  assertKeyStands,
  type DeveloperApiEnv,
  identifyDeveloper,
  requireDeveloper,
} from '../auth/developer-key.ts';
import type { AppContext } from '../context.ts';
import { ApiError, ValidationError } from '../errors.ts';
import type { AppEnv } from '../http/env.ts';
import { byAddress, rateLimit } from '../http/rate-limit.ts';
import type { z } from '../zod.ts';

/**
 * What every developer API route runs first: mark the answer `no-store` (it may carry a secret, shown
 * once), identify the key, count the request (per developer and environment, a developer's keys
 * sharing it; without a valid key, against the client address), then refuse it without a key.
 */
export function developerGuard(ctx: AppContext): MiddlewareHandler<DeveloperApiEnv>[] {
  const keyOf = (c: Context<AppEnv>) => (c as unknown as Context<DeveloperApiEnv>).get('developer');
  const bucketOf = (c: Context<AppEnv>) => {
    const key = keyOf(c);
    return key ? `${key.developerId}:${key.environment}` : byAddress(c);
  };
  const limit = rateLimit(ctx, 'developer', bucketOf, {
    scopeOf: (c) => {
      const key = keyOf(c);
      return key && { environment: key.environment };
    },
  }) as unknown as MiddlewareHandler<DeveloperApiEnv>;
  return [noStore, identifyDeveloper(ctx), limit, requireDeveloper()];
}

const noStore: MiddlewareHandler<DeveloperApiEnv> = async (c, next) => {
  await next();
  c.res.headers.set('Cache-Control', 'no-store');
};

/** The key's developer and environment, acting as long as the key stands. */
export const dev = (c: Context<DeveloperApiEnv>) => ({
  ...c.get('developer'),
  assertActing: () => assertKeyStands(c),
});
export const appId = (c: Context<DeveloperApiEnv>) => c.req.param('applicationId')!;

export function parse<T>(schema: z.ZodMiniType<T>, value: unknown): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  // An unknown field (a misspelling, often) is named itself, so it is not taken as applied.
  const fields = r.error.issues.flatMap((i) =>
    i.code === 'unrecognized_keys'
      ? i.keys.map((k) => ({ path: [...i.path, k].join('.'), message: 'is not a field of this request' }))
      : [{ path: i.path.join('.') || '(body)', message: i.message }],
  );
  throw new ValidationError('The request is not valid.', fields);
}

/** `application/json`, or another JSON type (`+json`), with or without parameters. */
const JSON_TYPE = /^application\/([\w.-]+\+)?json\s*(;|$)/i;

/**
 * The JSON body; an empty body reads as `{}` for the endpoints whose fields are all optional. A body
 * sent as another type is refused before it is read: what was sent as a form or as text was not meant
 * as these fields.
 */
export async function jsonBody(c: Context<DeveloperApiEnv>): Promise<unknown> {
  const type = c.req.header('content-type');
  if (type !== undefined && !JSON_TYPE.test(type))
    throw new ApiError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json.', 415);
  const text = await c.req.text();
  // Asked again once the body is in: a key revoked while it was sent changes nothing.
  assertKeyStands(c);
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new ValidationError('The body is not valid JSON.', [
      { path: '(body)', message: 'must be a JSON object' },
    ]);
  }
}
