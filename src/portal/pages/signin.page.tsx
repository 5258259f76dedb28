/** @jsxImportSource hono/jsx */
import { PasswordSigninForm } from '../../identity/pages/signin-form.tsx';
import {
  CsrfField,
  ErrorSummary,
  type FieldErrors,
  Notice,
  PortalLayout,
  type PortalProps,
  TextField,
} from './layout.tsx';

export function SigninPage(
  props: PortalProps & { error?: string; email?: string; signupOpen: boolean; notice?: string },
) {
  const { m } = props;
  return (
    <PortalLayout {...props} title={m.signinTitle}>
      <section class="card">
        <h1>{m.signinTitle}</h1>
        <Notice text={props.notice} />
        <PasswordSigninForm
          labels={m}
          action={`${props.base}/signin`}
          csrf={props.csrf}
          error={props.error}
          email={props.email}
        />
        <p>
          <a href={`${props.base}/forgot-password`}>{m.forgotPassword}</a>
        </p>
        {props.signupOpen ? (
          <p>
            {`${m.noAccount} `}
            <a href={`${props.base}/signup`}>{m.createAccount}</a>
          </p>
        ) : null}
      </section>
    </PortalLayout>
  );
}

interface PasswordFormProps extends PortalProps {
  errors?: FieldErrors;
  name?: string;
}

function NewPasswordFields(props: { m: PortalProps['m']; errors?: FieldErrors; label?: string }) {
  return (
    <>
      <TextField
        id="password"
        label={props.label ?? props.m.password}
        type="password"
        hint={props.m.passwordHint}
        autocomplete="new-password"
        required
        errors={props.errors}
      />
      <TextField
        id="confirm"
        label={props.m.confirmPassword}
        type="password"
        autocomplete="new-password"
        required
        errors={props.errors}
      />
    </>
  );
}

/** The optional name and the new password twice: what signing up and accepting an invitation both ask. */
function NameAndPasswordFields(props: { m: PortalProps['m']; errors?: FieldErrors; name?: string }) {
  return (
    <>
      <TextField
        id="name"
        label={`${props.m.name} ${props.m.optional}`}
        autocomplete="name"
        value={props.name}
        errors={props.errors}
      />
      <NewPasswordFields m={props.m} errors={props.errors} />
    </>
  );
}

export function SignupPage(props: PasswordFormProps & { open: boolean; email?: string }) {
  const { m } = props;
  return (
    <PortalLayout {...props} title={m.signupTitle}>
      <section class="card">
        <h1>{m.signupTitle}</h1>
        {props.open ? (
          <form method="post" action={`${props.base}/signup`} novalidate>
            <CsrfField token={props.csrf} />
            <ErrorSummary m={m} errors={props.errors} />
            <TextField
              id="email"
              label={m.email}
              type="email"
              autocomplete="username"
              required
              value={props.email}
              errors={props.errors}
            />
            <NameAndPasswordFields m={m} errors={props.errors} name={props.name} />
            <button type="submit">{m.signUp}</button>
          </form>
        ) : (
          <p>{m.signupInviteOnly}</p>
        )}
        <p>
          {`${m.haveAccount} `}
          <a href={`${props.base}/signin`}>{m.signIn}</a>
        </p>
      </section>
    </PortalLayout>
  );
}

export function InvitationPage(props: PasswordFormProps & { action: string; invitedEmail?: string }) {
  const { m } = props;
  return (
    <PortalLayout {...props} title={m.invitationTitle}>
      <section class="card">
        <h1>{m.invitationTitle}</h1>
        {props.invitedEmail ? (
          <form method="post" action={props.action} novalidate>
            <CsrfField token={props.csrf} />
            <ErrorSummary m={m} errors={props.errors} />
            <p>{m.invitationFor(props.invitedEmail)}</p>
            <NameAndPasswordFields m={m} errors={props.errors} name={props.name} />
            <button type="submit">{m.acceptInvitation}</button>
          </form>
        ) : (
          <p role="alert">{m.invitationInvalid}</p>
        )}
      </section>
    </PortalLayout>
  );
}

export function AccountPage(
  props: PasswordFormProps & {
    notice?: string;
    developerName: string;
    developerEmail: string;
    emailVerified: boolean;
  },
) {
  const { m } = props;
  return (
    <PortalLayout {...props} title={m.accountTitle}>
      <section class="card">
        <h1>{m.accountTitle}</h1>
        <Notice text={props.notice} />
        <dl>
          <dt>{m.email}</dt>
          <dd>{props.developerEmail}</dd>
          <dt>{m.emailStatus}</dt>
          <dd>{props.emailVerified ? m.emailIsVerified : m.emailNotVerified}</dd>
          {props.developerName ? (
            <>
              <dt>{m.name}</dt>
              <dd>{props.developerName}</dd>
            </>
          ) : null}
        </dl>
        {props.emailVerified ? null : (
          <form method="post" action={`${props.base}/account/verify-email`}>
            <CsrfField token={props.csrf} />
            <button type="submit">{m.resendVerification}</button>
          </form>
        )}
      </section>
      <section class="card" aria-labelledby="pw-title">
        <h2 id="pw-title">{m.changePasswordTitle}</h2>
        <form method="post" action={`${props.base}/account/password`} novalidate>
          <CsrfField token={props.csrf} />
          <ErrorSummary m={m} errors={props.errors} />
          <TextField
            id="current"
            label={m.currentPassword}
            type="password"
            autocomplete="current-password"
            required
            errors={props.errors}
          />
          <NewPasswordFields m={m} errors={props.errors} label={m.newPassword} />
          <button type="submit">{m.changePassword}</button>
        </form>
      </section>
    </PortalLayout>
  );
}

export function ForgotPasswordPage(props: PortalProps & { sent?: boolean; throttled?: boolean }) {
  const { m } = props;
  return (
    <PortalLayout {...props} title={m.forgotTitle}>
      <section class="card">
        <h1>{m.forgotTitle}</h1>
        {props.throttled ? <p role="alert">{m.signupThrottled}</p> : null}
        {props.sent ? (
          <Notice text={m.resetSent} />
        ) : (
          <form method="post" action={`${props.base}/forgot-password`} novalidate>
            <CsrfField token={props.csrf} />
            <p>{m.forgotIntro}</p>
            <TextField id="email" label={m.email} type="email" autocomplete="username" required />
            <button type="submit">{m.sendResetLink}</button>
          </form>
        )}
      </section>
    </PortalLayout>
  );
}

export function ResetPasswordPage(props: PasswordFormProps & { action: string; valid: boolean }) {
  const { m } = props;
  return (
    <PortalLayout {...props} title={m.resetTitle}>
      <section class="card">
        <h1>{m.resetTitle}</h1>
        {props.valid ? (
          <form method="post" action={props.action} novalidate>
            <CsrfField token={props.csrf} />
            <ErrorSummary m={m} errors={props.errors} />
            <NewPasswordFields m={m} errors={props.errors} label={m.newPassword} />
            <button type="submit">{m.setPassword}</button>
          </form>
        ) : (
          <p role="alert">{m.resetInvalid}</p>
        )}
      </section>
    </PortalLayout>
  );
}

/** A link's landing page: following it only shows a button, so a mail scanner's GET uses nothing up. */
export function VerifyEmailPage(props: PortalProps & { action: string; outcome?: 'verified' | 'invalid' }) {
  const { m } = props;
  return (
    <PortalLayout {...props} title={m.verifyTitle}>
      <section class="card">
        <h1>{m.verifyTitle}</h1>
        {props.outcome === 'verified' ? (
          <>
            <Notice text={m.emailVerified} />
            <p>
              <a href={`${props.base}/`}>{m.portalName}</a>
            </p>
          </>
        ) : props.outcome === 'invalid' ? (
          <p role="alert">{m.verifyInvalid}</p>
        ) : (
          <form method="post" action={props.action}>
            <CsrfField token={props.csrf} />
            <p>{m.verifyIntro}</p>
            <button type="submit">{m.verifyButton}</button>
          </form>
        )}
      </section>
    </PortalLayout>
  );
}
