import { recordAudit } from '../audit/audit.store.ts';
import { securityEvent } from '../audit/security-events.ts';
import type { AppContext } from '../context.ts';
import { checkPassword, hashPassword, verifyPassword } from '../crypto/password.ts';
import {
  acceptInvitation,
  claimInvitation,
  createDeveloper,
  type Developer,
  developerPasswordHash,
  findDeveloper,
  findDeveloperByEmail,
  getDeveloper,
  normaliseEmail,
  releaseInvitation,
  replaceDeveloperPasswordHash,
} from '../developer/developer.store.ts';
import { ApiError, ValidationError } from '../errors.ts';
import { addressKey } from '../http/address-key.ts';
import { countHits } from '../http/rate-limit.store.ts';
import type { KnownBrowser } from '../identity/known-browsers.ts';
import { signinFailure, signinThrottle } from '../identity/password-signin.ts';
import { unix } from '../platform/clock.ts';
import { createSessionStore } from '../web/session.store.ts';
import { emailProblems, nameProblems, passwordProblems, refuse } from './account-rules.ts';
import { sendVerificationEmail } from './email-links.ts';
import { applyUsedLink } from './used-link.ts';

export type SignInResult =
  /** `unchanged`: whether the developer is still active with the hash the password was checked against. */
  | { ok: true; developer: Developer; unchanged: () => boolean }
  | { ok: false; reason: 'invalid' | 'throttled' };

/**
 * Email and argon2id password. An unknown email, a wrong password, a disabled account and one without
 * a password (invited, not yet accepted) give the same answer after the same work.
 */
export async function developerSignIn(
  ctx: AppContext,
  input: {
    email: string;
    password: string;
    ip: string;
    /** The signing-in browser, counted on its own where it is known to the developer (identity/known-browsers.ts). */
    browser?: KnownBrowser;
  },
): Promise<SignInResult> {
  // The identity experience's throttle and limits, in developers' own counts: a person and a developer
  // sharing an email do not lock each other out.
  const t = signinThrottle(ctx, 'developer');
  const account = input.email;
  const log = { surface: 'portal', method: 'password', ip: input.ip } as const;
  const dev = findDeveloperByEmail(ctx.db, input.email);
  const hash = dev && dev.status === 'active' ? developerPasswordHash(ctx.db, dev.developerId) : null;
  const who = { browser: hash ? await input.browser?.recognise(dev!.developerId, hash) : undefined };
  if (t.attempt(account, input.ip, unix(ctx.clock), who) === 'throttled') {
    securityEvent(ctx, 'signin.throttled', log);
    return { ok: false, reason: 'throttled' };
  }
  // The hash the password was checked against, or the one a sign-in re-hash replaced it with.
  let checked = hash;
  const valid = await t.check(account, input.ip, who, () =>
    checkPassword(input.password, hash, (h) => {
      if (replaceDeveloperPasswordHash(ctx.db, dev!.developerId, hash!, h)) checked = h;
    }),
  );
  if (!valid || !dev) {
    securityEvent(ctx, 'signin.failed', {
      ...log,
      developerId: dev?.developerId,
      reason: signinFailure(dev, !!hash),
    });
    return { ok: false, reason: 'invalid' };
  }
  t.succeeded(account, input.ip, who);
  // Never with a hash set meanwhile: the browser knew the password it was checked against.
  if (checked) await input.browser?.remember(dev.developerId, checked);
  securityEvent(ctx, 'signin.succeeded', { ...log, developerId: dev.developerId });
  const id = dev.developerId;
  const unchanged = () =>
    findDeveloper(ctx.db, id)?.status === 'active' && developerPasswordHash(ctx.db, id) === checked;
  return { ok: true, developer: dev, unchanged };
}

/** Too many sign-ups or reset requests from one client address (`[developer] signups_per_ip`). */
export class SignupThrottled extends Error {}

/**
 * Counts a sign-up or password-reset request against the client address (`[developer] signups_per_ip`
 * per `signup_window`, in the `signup` rate-limit bucket); throws when over the limit. Every attempt
 * counts, refused ones included, so a refused client cannot keep probing.
 */
export function countSignupAttempt(ctx: AppContext, ip: string): void {
  const c = ctx.config.developer;
  const window = Math.floor(c.signup_window / 1000);
  const { count } = countHits(ctx.db, `signup:${addressKey(ip)}`, unix(ctx.clock), 1, window);
  if (count > c.signups_per_ip) throw new SignupThrottled();
}

/**
 * Open sign-up (`[developer] signup = "open"`): an active account with its password, limited to
 * sandbox until the developer follows the verification link mailed to them. `emailSent` is false when
 * the mail was not accepted (the account page can send it again).
 */
export async function signUp(
  ctx: AppContext,
  input: { email: string; name: string; password: string; confirm: string; ip: string },
): Promise<{ developerId: string; emailSent: boolean }> {
  refuse([
    ...emailProblems(input.email),
    ...nameProblems(input.name),
    ...passwordProblems(input.password, input.confirm),
  ]);
  const email = normaliseEmail(input.email);
  // Counted before the lookup, which tells whether the address has an account, and before the hash:
  // the limit bounds both what one client address can learn and the hashing it can ask for.
  countSignupAttempt(ctx, input.ip);
  if (findDeveloperByEmail(ctx.db, email)) refuse([{ path: 'email', message: 'already registered' }]);
  const passwordHash = await hashPassword(input.password);
  const { developerId } = ctx.db.sql.transaction(() => {
    const created = createDeveloper(ctx.db, ctx.clock, {
      email,
      name: input.name.trim(),
      passwordHash,
      verified: false,
      actor: 'system',
    });
    recordAudit(ctx.db, ctx.clock, {
      actor: `developer:${created.developerId}`,
      action: 'developer.signup',
      target: created.developerId,
      details: { email },
    });
    return created;
  });
  let emailSent = true;
  try {
    await sendVerificationEmail(ctx, getDeveloper(ctx.db, developerId));
  } catch (err) {
    emailSent = false;
    ctx.log.error('verification email not sent', {
      developerId,
      error: err instanceof Error ? err.message : String(err),
    });
  }
  securityEvent(ctx, 'developer.signed_up', { developerId, method: 'open' });
  return { developerId, emailSent };
}

/** Production actions need a verified address; sandbox ones do not. */
export function requireVerified(dev: Developer): void {
  if (!dev.emailVerified)
    throw new ApiError(
      'EMAIL_NOT_VERIFIED',
      `Verify your email address (${dev.email}) before using production: follow the link we sent you, or send a new one from your account page. Until then you can create sandbox applications only.`,
      403,
    );
}

/** Redeems an invitation link with the developer's chosen password. */
export async function acceptInvite(
  ctx: AppContext,
  token: string,
  input: { name: string; password: string; confirm: string },
): Promise<{ developerId: string }> {
  refuse([...nameProblems(input.name), ...passwordProblems(input.password, input.confirm)]);
  const name = input.name.trim();
  const invitation = await claimInvitation(ctx.db, ctx.clock, token);
  const accepted = await applyUsedLink(
    () => releaseInvitation(ctx.db, invitation.invitationId),
    async () => {
      const passwordHash = await hashPassword(input.password);
      return acceptInvitation(ctx.db, ctx.clock, invitation, { name, passwordHash });
    },
  );
  securityEvent(ctx, 'developer.signed_up', { developerId: accepted.developerId, method: 'invitation' });
  return accepted;
}

/**
 * Changes the password after checking the current one, and ends every other portal session of the
 * developer (a password change is what someone does after suspecting another person has it). Wrong
 * current passwords are throttled as sign-ins are (on a count of their own), so a stolen session adds
 * no more than sign-in's guesses per window.
 */
export async function changePassword(
  ctx: AppContext,
  developerId: string,
  currentSessionHash: string,
  input: { current: string; password: string; confirm: string; ip: string },
): Promise<'changed' | 'throttled'> {
  // A count of its own: sign-in guesses by anyone must not stop the owner from changing it.
  const t = signinThrottle(ctx, 'password-change');
  const account = developerId;
  if (t.attempt(account, input.ip, unix(ctx.clock)) === 'throttled') return 'throttled';
  const stored = developerPasswordHash(ctx.db, developerId);
  const valid = await t.check(account, input.ip, {}, async () =>
    stored ? verifyPassword(input.current, stored) : false,
  );
  if (!valid) throw new ValidationError('current password wrong', [{ path: 'current', message: 'wrong' }]);
  t.succeeded(account, input.ip);
  refuse(passwordProblems(input.password, input.confirm));
  const hash = await hashPassword(input.password);
  const sessions = createSessionStore(ctx.db);
  ctx.db.sql.transaction(() => {
    // Only over the password just checked, from a session still signed in: a reset made meanwhile stands.
    if (
      !sessions.exists(currentSessionHash) ||
      !replaceDeveloperPasswordHash(ctx.db, developerId, stored!, hash)
    )
      throw new ValidationError('current password changed meanwhile', [
        { path: 'current', message: 'changed' },
      ]);
    sessions.deleteOthers('developer', developerId, currentSessionHash);
    recordAudit(ctx.db, ctx.clock, {
      actor: `developer:${developerId}`,
      action: 'developer.password_change',
      target: developerId,
    });
  });
  return 'changed';
}
