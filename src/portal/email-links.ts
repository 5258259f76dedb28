import { clearOwnerAddresses, revokeOwnerSecrets } from '../apps/application.store.ts';
import { recordAudit } from '../audit/audit.store.ts';
import { revokeOwnerConsents } from '../consent/lifecycle.ts';
import type { AppContext } from '../context.ts';
import { hashPassword } from '../crypto/password.ts';
import { sha256Hex } from '../crypto/tokens.ts';
import { listApiKeys, revokeApiKey } from '../developer/api-key.store.ts';
import {
  type Developer,
  findDeveloper,
  findDeveloperByEmail,
  markEmailVerified,
  setDeveloperPassword,
} from '../developer/developer.store.ts';
import {
  createEmailToken,
  emailTokenOwner,
  redeemEmailToken,
  releaseEmailToken,
} from '../developer/email-token.store.ts';
import { ValidationError } from '../errors.ts';
import { createAuthorizationRequestStore } from '../oauth/authorization-request.store.ts';
import { createSessionStore } from '../web/session.store.ts';
import { createEndpointStore } from '../webhooks/endpoint.store.ts';
import { passwordProblems, refuse } from './account-rules.ts';
import { applyUsedLink } from './used-link.ts';

const VERIFY_TTL_SECONDS = 24 * 3600;
const RESET_TTL_SECONDS = 3600;

/** Sends a fresh verification link (earlier ones stop working); rejects when the mail was not accepted. */
export async function sendVerificationEmail(ctx: AppContext, dev: Developer): Promise<void> {
  const token = await createEmailToken(ctx.db, ctx.clock, {
    developerId: dev.developerId,
    purpose: 'verify_email',
    ttlSeconds: VERIFY_TTL_SECONDS,
  });
  await ctx.email.send({
    to: dev.email,
    subject: 'Verify your email address for the Verity developer portal',
    text: `Follow this link within 24 hours to verify ${dev.email}:\n\n${ctx.config.server.developer_url}/verify-email/${token}\n\nUntil then your account can create sandbox applications only. If you did not sign up, ignore this message.\n`,
  });
}

/** Follows a verification link; false when it is unknown, used or expired. */
export async function verifyEmail(ctx: AppContext, token: string): Promise<boolean> {
  const hash = await sha256Hex(token);
  return ctx.db.sql.transaction(() => {
    const developerId = redeemEmailToken(ctx.db, ctx.clock, hash, 'verify_email');
    if (!developerId) return false;
    markEmailVerified(ctx.db, ctx.clock, developerId);
    recordAudit(ctx.db, ctx.clock, {
      actor: `developer:${developerId}`,
      action: 'developer.email_verified',
      target: developerId,
    });
    return true;
  });
}

/**
 * "Forgot password?": mails a reset link when an active account has this address. The caller answers
 * the same either way, and the mail is sent after it has answered, so neither the answer nor its
 * timing tells whether the address has an account.
 */
export async function requestPasswordReset(ctx: AppContext, email: string): Promise<void> {
  const dev = findDeveloperByEmail(ctx.db, email);
  if (dev?.status !== 'active') return;
  const token = await createEmailToken(ctx.db, ctx.clock, {
    developerId: dev.developerId,
    purpose: 'reset_password',
    ttlSeconds: RESET_TTL_SECONDS,
  });
  ctx.email
    .send({
      to: dev.email,
      subject: 'Reset your Verity developer portal password',
      text: `Follow this link within an hour to choose a new password:\n\n${ctx.config.server.developer_url}/reset-password/${token}\n\nIf you did not ask for this, ignore this message; your password stays as it is.\n`,
    })
    .catch((err) =>
      ctx.log.error('password reset email not sent', {
        developerId: dev.developerId,
        error: err instanceof Error ? err.message : String(err),
      }),
    );
}

/** The developer a reset link is for, while it is usable. */
export async function resetLinkOwner(ctx: AppContext, token: string): Promise<Developer | undefined> {
  const developerId = await emailTokenOwner(ctx.db, ctx.clock, token, 'reset_password');
  const dev = developerId ? findDeveloper(ctx.db, developerId) : undefined;
  return dev?.status === 'active' ? dev : undefined;
}

const unusableResetLink = () => new ValidationError('this link is unknown, expired or already used');

/**
 * Sets the password chosen through a reset link, once: ends every session of the developer, and
 * verifies the address (the link reached it). An account whose address was not yet verified may have
 * been made by someone else in the owner's name, who saw every secret it holds: it is taken back
 * (`takeBack`), so only the owner, now proven, holds access and chooses where codes go. A link used,
 * expired or unknown meanwhile is refused with a ValidationError without fields.
 */
export async function resetPassword(
  ctx: AppContext,
  token: string,
  input: { password: string; confirm: string },
): Promise<{ developerId: string }> {
  const owner = await resetLinkOwner(ctx, token);
  if (!owner) throw unusableResetLink();
  refuse(passwordProblems(input.password, input.confirm));
  const tokenHash = await sha256Hex(token);
  const developerId = redeemEmailToken(ctx.db, ctx.clock, tokenHash, 'reset_password');
  if (!developerId) throw unusableResetLink();
  const giveBack = () => releaseEmailToken(ctx.db, tokenHash, 'reset_password');
  const taking = !owner.emailVerified;
  return applyUsedLink(giveBack, async () => {
    const passwordHash = await hashPassword(input.password);
    const reset = () => setResetPassword(ctx, developerId, passwordHash, taking);
    if (!taking) return reset();
    // The consents given to its applications end with the reset, each as a revocation does.
    await revokeOwnerConsents(ctx, developerId, { together: reset, actor: `developer:${developerId}` });
    return { developerId };
  });
}

/**
 * What someone who held an unverified account may still use: its API keys, client and webhook
 * secrets, the addresses its applications send codes, people and answers to, and the requests,
 * consents and tokens made under them.
 */
function takeBack(ctx: AppContext, developerId: string) {
  for (const key of listApiKeys(ctx.db, developerId))
    if (!key.revokedAt) revokeApiKey(ctx.db, ctx.clock, key.keyId, { actor: `developer:${developerId}` });
  return {
    clientSecretsRevoked: revokeOwnerSecrets(ctx.db, ctx.clock, developerId),
    webhookEndpointsDeleted: createEndpointStore(ctx.db).deleteOwnedBy(developerId),
    addressesCleared: clearOwnerAddresses(ctx.db, developerId),
    // Requests made under them (their consents end around this, see resetPassword): no code goes to
    // an address cleared above.
    authorizationRequestsEnded: createAuthorizationRequestStore(ctx.db).endOpenOfOwner(developerId),
  };
}

/**
 * The reset's change, in one transaction; `taking`: the account is taken back (its address was not
 * verified when the link was opened). Refused (a ValidationError) for an account not active.
 */
function setResetPassword(
  ctx: AppContext,
  developerId: string,
  passwordHash: string,
  taking: boolean,
): { developerId: string } {
  return ctx.db.sql.transaction(() => {
    const dev = findDeveloper(ctx.db, developerId);
    if (dev?.status !== 'active') throw unusableResetLink();
    setDeveloperPassword(ctx.db, developerId, passwordHash);
    // A reset ends every session: whoever knew the old password is signed out.
    createSessionStore(ctx.db).deleteOthers('developer', developerId, '');
    const taken = taking ? takeBack(ctx, developerId) : undefined;
    markEmailVerified(ctx.db, ctx.clock, developerId);
    recordAudit(ctx.db, ctx.clock, {
      actor: `developer:${developerId}`,
      action: 'developer.password_reset',
      target: developerId,
      details: taken,
    });
    return { developerId };
  });
}
