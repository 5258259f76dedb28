import { afterEach, expect, test } from 'bun:test';
import { purgeIdentityState } from '../../src/identity/jobs.ts';
import { signinThrottle } from '../../src/identity/password-signin.ts';
import { unix } from '../../src/platform/clock.ts';
import { createSessionStore } from '../../src/web/session.store.ts';
import { type TestContext, testContext } from '../helpers/context.ts';
import { storedSession } from './flow-helpers.ts';

let ctx: TestContext;
afterEach(() => ctx?.cleanup());

test('cleanup removes idle and expired sessions and old sign-in counters, keeps live ones', async () => {
  ctx = await testContext();
  const store = createSessionStore(ctx.db);
  const t = { idle: 30 * 60, absolute: 12 * 3600 };
  const now = unix(ctx.clock);
  const idle = await storedSession(ctx.db, 'identity', now - 31 * 60, t);
  const live = await storedSession(ctx.db, 'identity', now - 60, t);
  signinThrottle(ctx).attempt('old@example.org', '192.0.2.1', now - 16 * 60);
  signinThrottle(ctx).attempt('new@example.org', '192.0.2.2', now - 60);

  expect(purgeIdentityState(ctx, now)).toEqual({ sessions: 1, attempts: 2, sharing: 0 });
  expect(await store.resume('identity', idle.token, now, t)).toBeUndefined();
  expect(await store.resume('identity', live.token, now, t)).toBeDefined();
  expect(ctx.db.sql.prepare('SELECT key FROM signin_attempts ORDER BY key').all()).toEqual([
    { key: 'email:new@example.org' },
    { key: 'ip:192.0.2.2' },
  ]);
});
