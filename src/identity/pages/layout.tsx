/** @jsxImportSource hono/jsx */
import type { Child } from 'hono/jsx';
import { CSS } from '../../web/styles.ts';
import type { Messages } from '../messages/index.ts';

export interface PageProps {
  m: Messages;
  nonce: string;
  /** The hidden CSRF field of every form. */
  csrf: string;
  display: 'page' | 'popup';
  sandbox: boolean;
}

/** The head of every server-rendered page: not indexed, no favicon request, its styles under the CSP nonce. */
export function PageHead(props: { title: string; nonce: string; css: string }) {
  return (
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <meta name="robots" content="noindex" />
      <link rel="icon" href="data:," />
      <title>{props.title}</title>
      <style nonce={props.nonce} dangerouslySetInnerHTML={{ __html: props.css }} />
    </head>
  );
}

/** The one layout of the identity experience. */
export function Layout(props: PageProps & { title: string; children?: Child }) {
  const { m } = props;
  return (
    <html lang={m.lang}>
      <PageHead title={`${props.title} · ${m.productName}`} nonce={props.nonce} css={CSS} />
      <body class={props.display === 'popup' ? 'popup' : 'page'}>
        <a class="skip" href="#main">
          {m.skipToContent}
        </a>
        <header>
          <span class="brand">{m.productName}</span>
          {props.sandbox ? <span class="badge">{m.sandboxBadge}</span> : null}
        </header>
        <main id="main">
          <div class="card">{props.children}</div>
        </main>
      </body>
    </html>
  );
}

export const CsrfField = ({ token }: { token: string }) => (
  <input type="hidden" name="csrf_token" value={token} />
);
