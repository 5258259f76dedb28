import { securityEvent } from '../audit/security-events.ts';
import type { AppContext } from '../context.ts';
import { decoyHash, hashPassword, needsRehash, verifyPassword } from '../crypto/password.ts';
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
  const log = { surface: 'identity', method: 'password', ip: input.ip } as const;
  const person = createPersonStore(ctx.db).flowPersonByEmail(input.email);
  if (!throttle.attempt(input.email, input.ip, unix(ctx.clock), person?.id)) {
    securityEvent(ctx, 'signin.throttled', { ...log, personId: person?.id });
    return { ok: false, reason: 'throttled' };
  }
  const usable = person && person.status === 'active' && person.passwordHash ? person : undefined;
  const valid = await checked(
    async () => verifyPassword(input.password, usable?.passwordHash ?? (await decoyHash())),
    () => throttle.unchecked(input.email, input.ip, person?.id),
  );
  if (!usable || !valid) {
    securityEvent(ctx, 'signin.failed', {
      ...log,
      personId: person?.id,
      reason: signinFailure(person, !!person?.passwordHash),
    });
    return { ok: false, reason: 'invalid' };
  }
  throttle.succeeded(input.email, input.ip, usable.id);
  const stored = usable.passwordHash;
  if (stored && needsRehash(stored))
    await rehashed(ctx, input.password, (hash) =>
      createPersonStore(ctx.db).replacePasswordHash(usable.id, stored, hash),
    );
  securityEvent(ctx, 'signin.succeeded', { ...log, personId: usable.id });
  return { ok: true, person: usable };
}

/**
 * The password check's answer. When it has none (the hashing pool was busy), `takeBack` runs before the
 * error goes on: an attempt whose password was never checked counts for nothing.
 */
export async function checked(check: () => Promise<boolean>, takeBack: () => void): Promise<boolean> {
  try {
    return await check();
  } catch (e) {
    takeBack();
    throw e;
  }
}

/**
 * Stores the password hashed with the current parameters (see `needsRehash`). A busy hashing pool
 * leaves the old hash for the next sign-in: the person is signed in either way.
 */
export async function rehashed(
  ctx: AppContext,
  password: string,
  store: (hash: string) => void,
): Promise<void> {
  try {
    store(await hashPassword(password));
  } catch (e) {
    ctx.log.warn('password not re-hashed', { error: e instanceof Error ? e.message : String(e) });
  }
}

/**
 * Why a sign-in failed, for the log only (the person sees one answer). An unknown email is logged
 * without the email: it is personal data, and often someone else's.
 */
export function signinFailure(
  account: { status: string } | undefined,
  hasPassword: boolean,
): 'unknown_account' | 'disabled' | 'no_password' | 'wrong_password' {
  if (!account) return 'unknown_account';
  if (account.status !== 'active') return 'disabled';
  return hasPassword ? 'wrong_password' : 'no_password';
}
