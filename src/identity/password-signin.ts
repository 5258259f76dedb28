import type { AppContext } from '../context.ts';
import { decoyHash, verifyPassword } from '../crypto/password.ts';
import { createPersonStore, type FlowPerson } from '../persons/person.store.ts';
import { unix } from '../platform/clock.ts';
import { createSigninThrottle } from './signin-throttle.ts';

export type PasswordSignInResult =
  | { ok: true; person: FlowPerson }
  | { ok: false; reason: 'invalid' | 'throttled' };

export function signinThrottle(ctx: AppContext) {
  const c = ctx.config.identity;
  return createSigninThrottle(ctx.db, {
    perAccount: c.signin_attempts_per_account,
    perIp: c.signin_attempts_per_ip,
    window: Math.floor(c.signin_window / 1000),
  });
}

/**
 * Email and argon2id password sign-in of a production person. The same answer for an unknown email, a
 * wrong password, a disabled account or one without a password, and a hash is verified in every case,
 * so neither the message nor the timing reveals which accounts exist.
 */
export async function passwordSignIn(
  ctx: AppContext,
  input: { email: string; password: string; ip: string },
): Promise<PasswordSignInResult> {
  const throttle = signinThrottle(ctx);
  if (throttle.blocked(input.email, input.ip, unix(ctx.clock))) return { ok: false, reason: 'throttled' };
  const person = createPersonStore(ctx.db).flowPersonByEmail(input.email);
  const usable = person && person.status === 'active' && person.passwordHash ? person : undefined;
  const valid = await verifyPassword(input.password, usable?.passwordHash ?? (await decoyHash()));
  if (!usable || !valid) {
    throttle.recordFailure(input.email, input.ip, unix(ctx.clock));
    return { ok: false, reason: 'invalid' };
  }
  throttle.recordSuccess(input.email);
  return { ok: true, person: usable };
}
