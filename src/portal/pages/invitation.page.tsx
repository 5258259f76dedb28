/** @jsxImportSource hono/jsx */
import { CsrfField, ErrorSummary, PortalLayout } from './layout.tsx';
import { NameAndPasswordFields, type PasswordFormProps } from './password-fields.tsx';

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
