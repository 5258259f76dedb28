/** @jsxImportSource hono/jsx */
import type { Child } from 'hono/jsx';
import { CSS } from './styles.ts';

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

/** The words the frame of a person-facing page needs, from the caller's message catalogue. */
export interface FrameText {
  lang: string;
  productName: string;
  skipToContent: string;
  /** Shown beside the product name in sandbox flows. */
  badge?: string;
}

/**
 * The frame of the pages a person sees (the identity experience, and the authorize error page that
 * comes before it): product name, one card, the compact variant for `display=popup`.
 */
export function PersonFrame(
  props: FrameText & { title: string; nonce: string; display: 'page' | 'popup'; children?: Child },
) {
  return (
    <html lang={props.lang}>
      <PageHead title={`${props.title} · ${props.productName}`} nonce={props.nonce} css={CSS} />
      <body class={props.display === 'popup' ? 'popup' : 'page'}>
        <a class="skip" href="#main">
          {props.skipToContent}
        </a>
        <header>
          <span class="brand">{props.productName}</span>
          {props.badge ? <span class="badge">{props.badge}</span> : null}
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
