/** @jsxImportSource hono/jsx */
import { PortalLayout, type PortalProps } from './layout.tsx';

/** A one-time result that is no longer there (already shown, or its time has passed): 410. */
export function GonePage(props: PortalProps & { title: string; message: string; backHref: string }) {
  return (
    <PortalLayout {...props} title={props.title}>
      <section class="card">
        <h1>{props.title}</h1>
        <p>{props.message}</p>
        <div class="actions">
          <a class="button" href={props.backHref}>
            {props.m.back}
          </a>
        </div>
      </section>
    </PortalLayout>
  );
}
