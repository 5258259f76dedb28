/** @jsxImportSource hono/jsx */
import { CsrfField, ErrorSummary, Notice, PortalLayout, TextField } from './layout.tsx';
import { NewPasswordFields, type PasswordFormProps } from './password-fields.tsx';

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
