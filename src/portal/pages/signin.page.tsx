/** @jsxImportSource hono/jsx */
import { PasswordSigninForm } from '../../identity/pages/signin-form.tsx';
import { Notice, PortalLayout, type PortalProps } from './layout.tsx';

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
