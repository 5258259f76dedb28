import { securityEvent } from '../audit/security-events.ts';
import type { AppContext } from '../context.ts';
import { checkPassword } from '../crypto/password.ts';
import { createPersonStore, type FlowPerson } from '../persons/person.store.ts';
import { unix } from '../platform/clock.ts';
import type { KnownBrowser } from './known-browsers.ts';
import { createSigninThrottle, type ThrottledAccounts } from './signin-throttle.ts';

export type PasswordSignInResult =
  /** `unchanged`: whether the person is still active with the hash the password was checked against. */
  { ok: true; person: FlowPerson; unchanged: () => boolean } | { ok: false; reason: 'invalid' | 'throttled' };

export function signinThrottle(ctx: AppContext, accounts?: ThrottledAccounts) {
  const c = ctx.config.identity;
  const limits = {
    perAccount: c.signin_attempts_per_account,
    perIp: c.signin_attempts_per_ip,
    window: Math.floor(c.signin_window / 1000),
  };
  return createSigninThrottle(ctx.db, limits, accounts);
}

/**
 * Email and argon2id password sign-in of a production person. The same answer for an unknown email, a
 * wrong password, a disabled account or one without a password, and a hash is verified in every case,
 * so neither the message nor the timing reveals which accounts exist.
 */
export async function passwordSignIn(
  ctx: AppContext,
  input: {
    email: string;
    password: string;
    ip: string;
    /** The signing-in browser, counted on its own where it is known to the person (known-browsers.ts). */
    browser?: KnownBrowser;
  },
): Promise<PasswordSignInResult> {
  const throttle = signinThrottle(ctx);
  const log = { surface: 'identity', method: 'password', ip: input.ip } as const;
  const persons = createPersonStore(ctx.db);
  const person = persons.flowPersonByEmail(input.email);
  const stored = person?.status === 'active' ? person.passwordHash : null;
  const who = {
    personId: person?.id,
    browser: stored ? await input.browser?.recognise(person!.id, stored) : undefined,
  };
  const counted = throttle.attempt(input.email, input.ip, unix(ctx.clock), who);
  if (counted !== 'counted') securityEvent(ctx, 'signin.throttled', { ...log, personId: person?.id });
  if (counted === 'throttled') return { ok: false, reason: 'throttled' };
  if (counted === 'refused') {
    // Checked against the decoy, so that it takes as long as a wrong password.
    await throttle.check(input.email, input.ip, undefined, () =>
      checkPassword(input.password, null, () => {}),
    );
    return { ok: false, reason: 'invalid' };
  }
  // The hash the password was checked against, or the one a sign-in re-hash replaced it with.
  let checked = stored;
  const valid = await throttle.check(input.email, input.ip, who, () =>
    checkPassword(input.password, stored, (hash) => {
      if (persons.replacePasswordHash(person!.id, stored!, hash)) checked = hash;
    }),
  );
  if (!valid || !person) {
    securityEvent(ctx, 'signin.failed', {
      ...log,
      personId: person?.id,
      reason: signinFailure(person, !!person?.passwordHash),
    });
    return { ok: false, reason: 'invalid' };
  }
  throttle.succeeded(input.email, input.ip, who);
  // Never with a hash set meanwhile: the browser knew the password it was checked against.
  if (checked) await input.browser?.remember(person.id, checked);
  securityEvent(ctx, 'signin.succeeded', { ...log, personId: person.id });
  const unchanged = () => {
    const now = persons.flowPerson(person.id);
    return now?.status === 'active' && now.passwordHash === checked;
  };
  return { ok: true, person, unchanged };
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
