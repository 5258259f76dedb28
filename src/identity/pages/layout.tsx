/** @jsxImportSource hono/jsx */
import type { Child } from 'hono/jsx';
import { CsrfField, PersonFrame } from '../../web/layout.tsx';
import type { Messages } from '../messages/index.ts';

export { CsrfField };

export interface PageProps {
  m: Messages;
  nonce: string;
  /** The hidden CSRF field of every form. */
  csrf: string;
  display: 'page' | 'popup';
  sandbox: boolean;
  /** On every step of an open request: ends it at the application's callback with access_denied. */
  cancel?: { action: string; applicationName: string };
}

/** The one layout of the identity experience. */
export function Layout(props: PageProps & { title: string; children?: Child }) {
  const { m } = props;
  return (
    <PersonFrame
      lang={m.lang}
      productName={m.productName}
      skipToContent={m.skipToContent}
      badge={props.sandbox ? m.sandboxBadge : undefined}
      title={props.title}
      nonce={props.nonce}
      display={props.display}
    >
      {props.children}
      {props.cancel ? (
        <form method="post" action={props.cancel.action} class="cancel">
          <CsrfField token={props.csrf} />
          <button type="submit" class="link">
            {m.cancelAndReturn(props.cancel.applicationName)}
          </button>
        </form>
      ) : null}
    </PersonFrame>
  );
}
