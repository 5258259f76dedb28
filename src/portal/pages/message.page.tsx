/** @jsxImportSource hono/jsx */
import { PortalLayout, type PortalProps } from './layout.tsx';

export function MessagePage(props: PortalProps & { title: string; message: string; requestId?: string }) {
  return (
    <PortalLayout {...props} title={props.title}>
      <section class="card">
        <h1>{props.title}</h1>
        <p role="alert">{props.message}</p>
        {props.requestId ? (
          <dl>
            <dt>{props.m.errorRequestId}</dt>
            <dd>
              <code>{props.requestId}</code>
            </dd>
          </dl>
        ) : null}
      </section>
    </PortalLayout>
  );
}
