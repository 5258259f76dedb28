import { deleteExpiredAccessTokens } from '../auth/access-token.store.ts';
import type { AppContext } from '../context.ts';
import { deleteExpiredBuckets } from '../http/rate-limit.ts';
import type { Job } from '../jobs.ts';
import { unix } from '../platform/clock.ts';
import { createAuthorizationRequestStore } from './authorization-request.store.ts';
import { createCodeStore } from './code.store.ts';

/** Removes expired authorization requests, codes, access tokens and rate-limit windows. */
export function deleteExpiredOAuthState(ctx: AppContext, now: number) {
  const codes = createCodeStore(ctx.db).deleteExpired(now, Math.floor(ctx.config.oauth.token_ttl / 1000));
  const tokens = deleteExpiredAccessTokens(ctx.db, now);
  const requests = createAuthorizationRequestStore(ctx.db).deleteExpired(now);
  const buckets = deleteExpiredBuckets(ctx, now);
  return { requests, codes, tokens, buckets };
}

export const oauthJobs: Job[] = [
  {
    name: 'oauth.cleanup',
    schedule: '0 */5 * * * *',
    run(ctx) {
      deleteExpiredOAuthState(ctx, unix(ctx.clock));
    },
  },
];
