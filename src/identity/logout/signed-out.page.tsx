/** @jsxImportSource hono/jsx */
import { Layout, type PageProps } from '../pages/layout.tsx';

/** The end of a logout that returns nowhere: no `post_logout_redirect_uri` was asked for. */
export function SignedOutPage(props: PageProps) {
  const { m } = props;
  return (
    <Layout {...props} title={m.signedOutTitle}>
      <h1>{m.signedOutTitle}</h1>
      <p role="status">{m.signedOut}</p>
    </Layout>
  );
}
