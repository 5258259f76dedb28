/** @jsxImportSource hono/jsx */
import { CsrfField, Notice, PortalLayout, type PortalProps } from './layout.tsx';

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
