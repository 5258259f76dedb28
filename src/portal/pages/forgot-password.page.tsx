/** @jsxImportSource hono/jsx */
import { CsrfField, Notice, PortalLayout, type PortalProps, TextField } from './layout.tsx';

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
