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
    </PersonFrame>
  );
}
