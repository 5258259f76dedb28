/** @jsxImportSource hono/jsx */
import { Layout, type PageProps } from '../pages/layout.tsx';
import type { LogoutParams } from './logout-request.ts';

/**
 * A logout POSTed from another site whose fields are too long for a URL (an `id_token_hint` carrying
 * the photo): the browser posts them again from this page, which the session cookie comes with.
 * Without scripts, the person presses Continue.
 */
export function LogoutRepostPage(props: PageProps & { action: string; params: LogoutParams }) {
  const { m } = props;
  return (
    <Layout {...props} title={m.logoutTitle}>
      <h1>{m.logoutTitle}</h1>
      <form method="post" action={props.action} id="repost">
        {Object.entries(props.params).map(([name, value]) =>
          value === undefined ? null : <input type="hidden" name={name} value={value} />,
        )}
        <input type="hidden" name="reposted" value="1" />
        <button type="submit">{m.logoutContinue}</button>
      </form>
      <script
        nonce={props.nonce}
        dangerouslySetInnerHTML={{ __html: "document.getElementById('repost').submit();" }}
      />
    </Layout>
  );
}
