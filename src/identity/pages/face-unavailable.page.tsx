/** @jsxImportSource hono/jsx */
import { CsrfField, Layout, type PageProps } from './layout.tsx';

/** `[face] provider = "none"`: say so plainly; Continue ends the request with access_denied. */
export function FaceUnavailablePage(props: PageProps & { action: string }) {
  const { m } = props;
  return (
    <Layout {...props} title={m.faceUnavailableTitle}>
      <h1>{m.faceUnavailableTitle}</h1>
      <p role="alert">{m.faceUnavailable}</p>
      <form method="post" action={props.action}>
        <CsrfField token={props.csrf} />
        <button type="submit">{m.continue}</button>
      </form>
    </Layout>
  );
}
