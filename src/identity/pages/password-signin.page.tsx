/** @jsxImportSource hono/jsx */
import { Layout } from './layout.tsx';
import { PasswordSigninForm, type SigninProps } from './signin-form.tsx';

/** Production sign-in: email and password. */
export function PasswordSigninPage(props: SigninProps) {
  const { m } = props;
  return (
    <Layout {...props} title={m.signinTitle}>
      <h1>{m.signinTitle}</h1>
      <p class="muted">{m.signinTo(props.applicationName)}</p>
      <PasswordSigninForm
        labels={m}
        action={props.action}
        csrf={props.csrf}
        error={props.error}
        email={props.email}
        focusFirstEmpty
      />
    </Layout>
  );
}
