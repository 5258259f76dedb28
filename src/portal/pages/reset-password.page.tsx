/** @jsxImportSource hono/jsx */
import { CsrfField, ErrorSummary, PortalLayout } from './layout.tsx';
import { NewPasswordFields, type PasswordFormProps } from './password-fields.tsx';

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
