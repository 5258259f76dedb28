import type { AppContext } from '../context.ts';
import { createDocumentStore } from '../documents/document.store.ts';
import type { Job } from '../jobs.ts';
import { unix } from '../platform/clock.ts';
import { sessionTimeouts } from '../web/session.middleware.ts';
import { createSessionStore } from '../web/session.store.ts';
import { signinThrottle } from './password-signin.ts';

/**
 * Removes identity sessions past either timeout, sign-in counters whose window has passed, and the
 * sharing switches of persona sessions that are gone.
 */
export function purgeIdentityState(ctx: AppContext, now: number) {
  const sessions = createSessionStore(ctx.db).purgeExpired(now, 'identity', sessionTimeouts(ctx));
  const attempts = signinThrottle(ctx).purgeExpired(now);
  const sharing = createDocumentStore(ctx.db).purgeSessionSharing(now);
  return { sessions, attempts, sharing };
}

export const identityJobs: Job[] = [
  {
    name: 'identity.cleanup',
    schedule: '30 */5 * * * *',
    run(ctx) {
      purgeIdentityState(ctx, unix(ctx.clock));
    },
  },
];
