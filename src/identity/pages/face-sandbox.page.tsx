/** @jsxImportSource hono/jsx */
import type { FaceRetry } from '../flow.ts';
import { FaceRetryAlert } from './face-retry.tsx';
import { CsrfField, Layout, type PageProps } from './layout.tsx';

/** Sandbox: the tester chooses the scripted result. */
export function SandboxFacePage(props: PageProps & { action: string; retry?: FaceRetry }) {
  const { m } = props;
  return (
    <Layout {...props} title={m.faceTitle}>
      <h1>{m.faceTitle}</h1>
      <p>{m.faceIntroSandbox}</p>
      <FaceRetryAlert m={m} retry={props.retry} />
      <form method="post" action={props.action}>
        <CsrfField token={props.csrf} />
        <button type="submit" name="outcome" value="pass">
          {m.passFace}
        </button>
        <button type="submit" name="outcome" value="fail_liveness" class="secondary">
          {m.failLiveness}
        </button>
        <button type="submit" name="outcome" value="fail_match" class="secondary">
          {m.failMatch}
        </button>
      </form>
    </Layout>
  );
}
