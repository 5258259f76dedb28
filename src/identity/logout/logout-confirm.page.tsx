/** @jsxImportSource hono/jsx */
import { CsrfField, Layout, type PageProps } from '../pages/layout.tsx';
import type { LogoutRequest } from './logout-request.ts';

/**
 * Asked when a logout request cannot show it comes from the person's own session at an application
 * (no valid `id_token_hint` for them): a link alone must not sign anyone out (RP-Initiated Logout §6).
 */
export function LogoutConfirmPage(
  props: PageProps & {
    action: string;
    accountHref: string;
    applicationName?: string;
    personName: string;
    carried: LogoutRequest['carried'];
  },
) {
  const { m } = props;
  return (
    <Layout {...props} title={m.logoutTitle}>
      <h1>{m.logoutTitle}</h1>
      <p>{m.logoutAsk(props.applicationName)}</p>
      {props.personName ? <p class="muted">{m.logoutSignedInAs(props.personName)}</p> : null}
      <form method="post" action={props.action}>
        <CsrfField token={props.csrf} />
        {Object.entries(props.carried).map(([name, value]) =>
          value === undefined ? null : <input type="hidden" name={name} value={value} />,
        )}
        <div class="row">
          <a href={props.accountHref}>{m.logoutStay}</a>
          <button type="submit">{m.logoutConfirm}</button>
        </div>
      </form>
    </Layout>
  );
}
