import { recordAudit } from '../../audit/audit.store.ts';
import type { AppContext } from '../../context.ts';
import { decoyHash, hashPassword, verifyPassword } from '../../crypto/password.ts';
import { ValidationError } from '../../errors.ts';
import { signinThrottle } from '../../identity/password-signin.ts';
import { createSessionStore } from '../../identity/session.store.ts';
import { unix } from '../../platform/clock.ts';
import {
  acceptInvitation,
  createDeveloper,
  type Developer,
  developerPasswordHash,
  findDeveloperByEmail,
  normaliseEmail,
  setDeveloperPassword,
} from '../developer.store.ts';

export const MIN_PASSWORD = 12;
export const MAX_PASSWORD = 1024;
export const MAX_NAME = 100;

/**
 * Developers are throttled by the identity experience's throttle and limits, in their own key space so a
 * person and a developer sharing an email do not lock each other out.
 */
const accountOf = (email: string) => `developer:${email.trim().toLowerCase()}`;

export type SignInResult =
  | { ok: true; developer: Developer }
  | { ok: false; reason: 'invalid' | 'throttled' };

/**
 * Email and argon2id password. An unknown email, a wrong password, a disabled account and one without
 * a password (invited, not yet accepted) give the same answer after the same work.
 */
export async function developerSignIn(
  ctx: AppContext,
  input: { email: string; password: string; ip: string },
): Promise<SignInResult> {
  const t = signinThrottle(ctx);
  const account = accountOf(input.email);
  if (t.blocked(account, input.ip, unix(ctx.clock))) return { ok: false, reason: 'throttled' };
  const dev = findDeveloperByEmail(ctx.db, input.email);
  const hash = dev && dev.status === 'active' ? developerPasswordHash(ctx.db, dev.developerId) : null;
  const valid = await verifyPassword(input.password, hash ?? (await decoyHash()));
  if (!dev || !hash || !valid) {
    t.recordFailure(account, input.ip, unix(ctx.clock));
    return { ok: false, reason: 'invalid' };
  }
  t.recordSuccess(account);
  return { ok: true, developer: dev };
}

type Problem = { path: string; message: string };

/** The password rules; problems are keyed by the form's field ids. */
function passwordProblems(password: string, confirm: string): Problem[] {
  if (password.length < MIN_PASSWORD) return [{ path: 'password', message: 'too_short' }];
  if (password.length > MAX_PASSWORD) return [{ path: 'password', message: 'too_long' }];
  if (password !== confirm) return [{ path: 'confirm', message: 'differ' }];
  return [];
}

const nameProblems = (name: string): Problem[] =>
  name.trim().length > MAX_NAME ? [{ path: 'name', message: 'too_long' }] : [];

function emailProblems(email: string): Problem[] {
  try {
    normaliseEmail(email);
    return [];
  } catch (err) {
    if (err instanceof ValidationError) return err.fields;
    throw err;
  }
}

/** Every problem of the form at once, so the person fixes them in one pass. */
function refuse(problems: Problem[]): void {
  if (problems.length) throw new ValidationError('the form has problems', problems);
}

/** Open sign-up (`[developer] signup = "open"`): an active account with its password. */
export async function signUp(
  ctx: AppContext,
  input: { email: string; name: string; password: string; confirm: string },
): Promise<{ developerId: string }> {
  refuse([
    ...emailProblems(input.email),
    ...nameProblems(input.name),
    ...passwordProblems(input.password, input.confirm),
  ]);
  const email = normaliseEmail(input.email);
  const name = input.name.trim();
  const hash = await hashPassword(input.password);
  return ctx.db.sql.transaction(() => {
    const { developerId } = createDeveloper(ctx.db, ctx.clock, { email, name, actor: 'system' });
    setDeveloperPassword(ctx.db, developerId, hash);
    recordAudit(ctx.db, ctx.clock, {
      actor: `developer:${developerId}`,
      action: 'developer.signup',
      target: developerId,
      details: { email },
    });
    return { developerId };
  });
}

/** Redeems an invitation link with the developer's chosen password. */
export async function acceptInvite(
  ctx: AppContext,
  token: string,
  input: { name: string; password: string; confirm: string },
): Promise<{ developerId: string }> {
  refuse([...nameProblems(input.name), ...passwordProblems(input.password, input.confirm)]);
  const name = input.name.trim();
  const passwordHash = await hashPassword(input.password);
  return acceptInvitation(ctx.db, ctx.clock, token, { name, passwordHash });
}

/**
 * Changes the password after checking the current one, and ends every other portal session of the
 * developer (a password change is what someone does after suspecting another person has it).
 */
export async function changePassword(
  ctx: AppContext,
  developerId: string,
  currentSessionHash: string,
  input: { current: string; password: string; confirm: string },
): Promise<void> {
  const stored = developerPasswordHash(ctx.db, developerId);
  if (!stored || !(await verifyPassword(input.current, stored)))
    throw new ValidationError('current password wrong', [{ path: 'current', message: 'wrong' }]);
  refuse(passwordProblems(input.password, input.confirm));
  const hash = await hashPassword(input.password);
  ctx.db.sql.transaction(() => {
    setDeveloperPassword(ctx.db, developerId, hash);
    createSessionStore(ctx.db).deleteOthers('developer', developerId, currentSessionHash);
    recordAudit(ctx.db, ctx.clock, {
      actor: `developer:${developerId}`,
      action: 'developer.password_change',
      target: developerId,
    });
  });
}
