/** @jsxImportSource hono/jsx */
import type { Child } from 'hono/jsx';
import { CsrfField } from '../../identity/pages/layout.tsx';
import { FormActions, PortalLayout, type PortalProps } from './layout.tsx';

/** A confirmation page for a destructive or irreversible action. */
export function ConfirmPage(
  props: PortalProps & {
    title: string;
    warning: string;
    action: string;
    confirm: string;
    cancelHref: string;
    danger?: boolean;
    children?: Child;
  },
) {
  return (
    <PortalLayout {...props} title={props.title}>
      <section class="card">
        <h1>{props.title}</h1>
        <p>{props.warning}</p>
        <form method="post" action={props.action}>
          <CsrfField token={props.csrf} />
          {props.children}
          <FormActions
            m={props.m}
            submit={props.confirm}
            cancelHref={props.cancelHref}
            danger={props.danger}
          />
        </form>
      </section>
    </PortalLayout>
  );
}
