/** @jsxImportSource hono/jsx */
import { Hono } from 'hono';
import { z } from 'zod';
import { findInvitation } from '../developer/developer.store.ts';
import { ValidationError } from '../errors.ts';
import { knownBrowsers } from '../identity/known-browsers.ts';
import { unix } from '../platform/clock.ts';
import { readForm } from '../web/form.ts';
import { signInSession, signOutSession } from '../web/session.middleware.ts';
import {
  acceptInvite,
  changePassword,
  countSignupAttempt,
  developerSignIn,
  SignupThrottled,
  signUp,
} from './account.ts';
import {
  requestPasswordReset,
  resetLinkOwner,
  resetPassword,
  sendVerificationEmail,
  verifyEmail,
} from './email-links.ts';
import type { PC, Portal, PortalEnv } from './env.ts';
import type { Messages } from './messages/index.ts';
import { AccountPage } from './pages/account.page.tsx';
import { ForgotPasswordPage } from './pages/forgot-password.page.tsx';
import { InvitationPage } from './pages/invitation.page.tsx';
import type { FieldErrors } from './pages/layout.tsx';
import { ResetPasswordPage } from './pages/reset-password.page.tsx';
import { SigninPage } from './pages/signin.page.tsx';
import { SignupPage } from './pages/signup.page.tsx';
import { VerifyEmailPage } from './pages/verify-email.page.tsx';

const signinForm = z.object({ email: z.string().max(320), password: z.string().max(4096) });
const passwordFields = { password: z.string().max(4096), confirm: z.string().max(4096) };
const signupForm = z.object({
  email: z.string().max(320),
  name: z.string().max(1000).default(''),
  ...passwordFields,
});
const inviteForm = z.object({ name: z.string().max(1000).default(''), ...passwordFields });
const changeForm = z.object({ current: z.string().max(4096), ...passwordFields });
const forgotForm = z.object({ email: z.string().max(320) });
const resetForm = z.object(passwordFields);
const emptyForm = z.object({});

/** Account rule violations in the catalogue's words, keyed by field id. */
function accountErrors(err: ValidationError, m: Messages): FieldErrors {
  const out: FieldErrors = {};
  for (const f of err.fields) {
    const field = f.path || 'email';
    out[field] ??=
      field === 'email'
        ? f.message === 'already registered'
          ? m.emailTaken
          : m.emailInvalid
        : field === 'name'
          ? m.nameTooLong
          : field === 'confirm'
            ? m.passwordsDiffer
            : field === 'current'
              ? m.currentPasswordWrong
              : f.message === 'too_long'
                ? m.passwordTooLong
                : m.passwordTooShort;
  }
  return out;
}

/** Sign-in, sign-up, invitations, sign-out and password change. */
export function authRoutes(p: Portal) {
  const { ctx, base } = p;
  const app = new Hono<PortalEnv>();
  const signupOpen = () => ctx.config.developer.signup === 'open';
  const browsers = knownBrowsers(ctx, '__Host-verity_dev_known');

  const startSession = (c: PC, developerId: string, unchanged?: () => boolean) =>
    signInSession(c, ctx, { subjectId: developerId, authTime: unix(ctx.clock), amr: ['pwd'] }, unchanged);

  app.get('/', (c) => c.redirect(`${base}/${p.developer(c) ? 'apps' : 'signin'}`, 303));

  app.get('/signin', (c) => {
    if (p.developer(c)) return c.redirect(`${base}/apps`, 303);
    const notice = c.req.query('reset') ? p.props(c).m.passwordReset : undefined;
    return c.html(<SigninPage {...p.props(c)} signupOpen={signupOpen()} notice={notice} />);
  });

  app.post('/signin', async (c) => {
    const f = await readForm(c, signinForm);
    const m = p.props(c).m;
    const result = await developerSignIn(c.var.ctx, {
      email: f.email,
      password: f.password,
      ip: c.get('clientIp'),
      browser: browsers.of(c),
    });
    if (!result.ok) {
      const throttled = result.reason === 'throttled';
      return c.html(
        <SigninPage
          {...p.props(c)}
          signupOpen={signupOpen()}
          email={f.email}
          error={throttled ? m.signinThrottled : m.signinFailed}
        />,
        throttled ? 429 : 401,
      );
    }
    await startSession(c, result.developer.developerId, result.unchanged);
    return c.redirect(`${base}/apps`, 303);
  });

  app.get('/signup', (c) => c.html(<SignupPage {...p.props(c)} open={signupOpen()} />));

  app.post('/signup', async (c) => {
    if (!signupOpen()) return c.html(<SignupPage {...p.props(c)} open={false} />, 403);
    const f = await readForm(c, signupForm);
    try {
      const { developerId, emailSent } = await signUp(c.var.ctx, { ...f, ip: c.get('clientIp') });
      await startSession(c, developerId);
      return c.redirect(`${base}/account?verification=${emailSent ? 'sent' : 'failed'}`, 303);
    } catch (err) {
      const props = p.props(c);
      if (err instanceof SignupThrottled)
        return c.html(
          <SignupPage
            {...props}
            open
            email={f.email}
            name={f.name}
            errors={{ email: props.m.signupThrottled }}
          />,
          429,
        );
      if (!(err instanceof ValidationError)) throw err;
      return c.html(
        <SignupPage {...props} open email={f.email} name={f.name} errors={accountErrors(err, props.m)} />,
        400,
      );
    }
  });

  app.get('/invitations/:token', async (c) => {
    const invitation = await findInvitation(ctx.db, ctx.clock, c.req.param('token'));
    return c.html(
      <InvitationPage {...p.props(c)} action={c.req.path} invitedEmail={invitation?.email} />,
      invitation ? 200 : 404,
    );
  });

  app.post('/invitations/:token', async (c) => {
    const token = c.req.param('token');
    const invitation = await findInvitation(ctx.db, ctx.clock, token);
    if (!invitation) return c.html(<InvitationPage {...p.props(c)} action={c.req.path} />, 404);
    const f = await readForm(c, inviteForm);
    try {
      const { developerId } = await acceptInvite(c.var.ctx, token, f);
      await startSession(c, developerId);
      return c.redirect(`${base}/apps`, 303);
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      const props = p.props(c);
      // A race lost to another redemption has no field: the invitation is simply gone.
      if (!err.fields.length) return c.html(<InvitationPage {...props} action={c.req.path} />, 404);
      return c.html(
        <InvitationPage
          {...props}
          action={c.req.path}
          invitedEmail={invitation.email}
          name={f.name}
          errors={accountErrors(err, props.m)}
        />,
        400,
      );
    }
  });

  app.post('/signout', (c) => {
    signOutSession(c, ctx);
    return c.redirect(`${base}/signin`, 303);
  });

  const accountPage = (c: PC, extra: { errors?: FieldErrors; notice?: string } = {}, status = 200) => {
    const dev = p.me(c);
    return c.html(
      <AccountPage
        {...p.props(c, 'account')}
        developerEmail={dev.email}
        developerName={dev.name}
        emailVerified={dev.emailVerified}
        {...extra}
      />,
      status as 200,
    );
  };

  app.get('/account', (c) => {
    const { m } = p.props(c);
    const verification = c.req.query('verification');
    const notice = c.req.query('changed')
      ? m.passwordChanged
      : verification === 'sent'
        ? m.verificationSent(p.me(c).email)
        : verification === 'failed'
          ? m.verificationNotSent
          : undefined;
    return accountPage(c, { notice });
  });

  app.post('/account/verify-email', async (c) => {
    await readForm(c, emptyForm);
    const dev = p.me(c);
    if (dev.emailVerified) return c.redirect(`${base}/account`, 303);
    try {
      countSignupAttempt(ctx, c.get('clientIp'));
    } catch (err) {
      if (!(err instanceof SignupThrottled)) throw err;
      return accountPage(c, { notice: p.props(c).m.verificationThrottled }, 429);
    }
    let sent = true;
    await sendVerificationEmail(ctx, dev).catch((err) => {
      sent = false;
      c.get('log')?.error('verification email not sent', {
        developerId: dev.developerId,
        error: String(err),
      });
    });
    return c.redirect(`${base}/account?verification=${sent ? 'sent' : 'failed'}`, 303);
  });

  app.get('/verify-email/:token', (c) => c.html(<VerifyEmailPage {...p.props(c)} action={c.req.path} />));

  app.post('/verify-email/:token', async (c) => {
    await readForm(c, emptyForm);
    const ok = await verifyEmail(ctx, c.req.param('token'));
    return c.html(
      <VerifyEmailPage {...p.props(c)} action={c.req.path} outcome={ok ? 'verified' : 'invalid'} />,
      ok ? 200 : 404,
    );
  });

  app.get('/forgot-password', (c) => c.html(<ForgotPasswordPage {...p.props(c)} />));

  app.post('/forgot-password', async (c) => {
    const f = await readForm(c, forgotForm);
    try {
      countSignupAttempt(ctx, c.get('clientIp'));
    } catch (err) {
      if (!(err instanceof SignupThrottled)) throw err;
      return c.html(<ForgotPasswordPage {...p.props(c)} throttled />, 429);
    }
    await requestPasswordReset(ctx, f.email);
    return c.html(<ForgotPasswordPage {...p.props(c)} sent />);
  });

  app.get('/reset-password/:token', async (c) => {
    const valid = (await resetLinkOwner(ctx, c.req.param('token'))) !== undefined;
    return c.html(<ResetPasswordPage {...p.props(c)} action={c.req.path} valid={valid} />, valid ? 200 : 404);
  });

  app.post('/reset-password/:token', async (c) => {
    const f = await readForm(c, resetForm);
    try {
      await resetPassword(ctx, c.req.param('token'), f);
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      const props = p.props(c);
      // A link used, expired or unknown meanwhile has no field to point at.
      if (!err.fields.length)
        return c.html(<ResetPasswordPage {...props} action={c.req.path} valid={false} />, 404);
      return c.html(
        <ResetPasswordPage {...props} action={c.req.path} valid errors={accountErrors(err, props.m)} />,
        400,
      );
    }
    signOutSession(c, ctx);
    return c.redirect(`${base}/signin?reset=1`, 303);
  });

  app.post('/account/password', async (c) => {
    const dev = p.me(c);
    const f = await readForm(c, changeForm);
    try {
      const changed = await changePassword(ctx, dev.developerId, c.get('session').idHash, {
        ...f,
        ip: c.get('clientIp'),
      });
      if (changed === 'throttled')
        return accountPage(c, { errors: { current: p.props(c).m.signinThrottled } }, 429);
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      return accountPage(c, { errors: accountErrors(err, p.props(c).m) }, 400);
    }
    // A fresh session id after a credential change.
    await startSession(c, dev.developerId);
    return c.redirect(`${base}/account?changed=1`, 303);
  });

  return app;
}
