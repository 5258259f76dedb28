/** @jsxImportSource hono/jsx */
import type { PageProps } from './layout.tsx';
import { Layout } from './layout.tsx';

export function ErrorPage(props: PageProps & { message: string; requestId: string }) {
  const { m } = props;
  return (
    <Layout {...props} title={m.errorTitle}>
      <h1>{m.errorTitle}</h1>
      <p role="alert">{props.message}</p>
      <dl>
        <dt>{m.errorRequestId}</dt>
        <dd>
          <code>{props.requestId}</code>
        </dd>
      </dl>
    </Layout>
  );
}
