/** @jsxImportSource hono/jsx */
import { CsrfField, ErrorSummary, PortalLayout, TextField } from './layout.tsx';
import { NameAndPasswordFields, type PasswordFormProps } from './password-fields.tsx';

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
