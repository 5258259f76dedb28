import { html, raw } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import type { IdentityDocument, IdentityDocumentSummary, UserInfo } from '../sdk/index.ts';
import type { ReceivedWebhook } from './demo.store.ts';

type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

const STYLE = `
  body { font: 16px/1.5 system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem; color: #1b1b1f; }
  header { display: flex; gap: 1rem; align-items: baseline; border-bottom: 1px solid #ddd; margin-bottom: 1.5rem; }
  header h1 { font-size: 1.4rem; margin: 0 auto 0.5rem 0; }
  button, .button { font: inherit; padding: 0.5rem 1rem; border-radius: 6px; border: 1px solid #245; background: #245; color: #fff; cursor: pointer; text-decoration: none; display: inline-block; }
  button.secondary, .button.secondary { background: #fff; color: #245; }
  pre { background: #f5f5f7; padding: 0.75rem; overflow-x: auto; border-radius: 6px; font-size: 0.85rem; }
  table { border-collapse: collapse; width: 100%; } td, th { text-align: left; padding: 0.3rem 0.5rem; border-bottom: 1px solid #eee; vertical-align: top; }
  .note { color: #555; } .error { color: #a00; }
`;

export function layout(title: string, nonce: string, body: Html): Html {
  return html`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${title} · Verity demo</title>
    <style nonce="${nonce}">${raw(STYLE)}</style>
  </head>
  <body>
    <header>
      <h1>Verity demo relying party</h1>
      <nav><a href="/">Home</a> · <a href="/webhooks">Webhooks</a></nav>
    </header>
    <main>${body}</main>
  </body>
</html>`;
}

/**
 * The start page. `accessEnded` explains why a signed-in person is back here: Verity refused the
 * session's access token, so the session was ended rather than left showing claims it can no longer read.
 */
export function signedOutPage(nonce: string, accessEnded?: string): Html {
  return layout(
    'Sign in',
    nonce,
    html`${
      accessEnded
        ? html`<div id="access-ended" role="alert">
            <h2>Verity no longer gives this application access</h2>
            <p class="error">${accessEnded}</p>
            <p>You are signed out of the demo. Sign in again to continue.</p>
          </div>`
        : ''
    }
      <p>
        This small application signs you in with Verity's sandbox. Pick a test persona (Ada is a verified adult),
        pass the face check and allow the scopes; the application then shows what it received.
      </p>
      <p>
        <button id="popup" type="button">Sign in (popup)</button>
        <button id="redirect" type="button" class="secondary">Sign in (redirect)</button>
      </p>
      <p id="status" role="status" class="note"></p>
      <script type="module" nonce="${nonce}">
        import { signIn } from '/sdk/verity-browser.js';
        const status = document.getElementById('status');
        const show = (text) => { status.textContent = text; };
        const done = (r) => {
          if (r.status === 'complete') location.assign('/');
          else if (r.status === 'closed') show('The sign-in window was closed before finishing.');
        };
        const fail = (e) => show('Could not start sign-in: ' + e.message);
        // signIn opens the popup synchronously, so it must be the first thing the click does.
        document.getElementById('popup').addEventListener('click', () => {
          signIn({ transactionEndpoint: '/auth/transaction' }).then(done, fail);
        });
        document.getElementById('redirect').addEventListener('click', () => {
          signIn({ transactionEndpoint: '/auth/transaction', mobile: true }).then(done, fail);
        });
      </script>`,
  );
}

const json = (v: unknown) => html`<pre>${JSON.stringify(v, null, 2)}</pre>`;

export interface SignedInView {
  sub: string;
  claims: Record<string, unknown>;
  scopes: string[];
  userinfo?: UserInfo;
  userinfoError?: string;
  documents?: IdentityDocumentSummary[];
  documentDetail?: IdentityDocument;
  documentsError?: string;
  accountUrl: string;
}

export function signedInPage(nonce: string, v: SignedInView): Html {
  return layout(
    'Signed in',
    nonce,
    html`<p>Signed in as <code>${v.sub}</code> (pairwise subject, the key of this person's account here).</p>
      <form method="post" action="/signout"><button type="submit" class="secondary">Sign out</button></form>
      <h2>ID token claims</h2>
      <p class="note">Validated by the SDK: RS256 signature, issuer, audience, expiry, nonce.</p>
      ${json(v.claims)}
      <h2>UserInfo claims</h2>
      <p class="note">Granted scopes: ${v.scopes.join(' ')}. A claim that is absent is unknown, never false.</p>
      ${v.userinfo ? json(v.userinfo) : html`<p class="error" id="userinfo-error">${v.userinfoError}</p>`}
      <h2>Shared identity documents</h2>
      ${
        v.documents
          ? v.documents.length === 0
            ? html`<p>No documents shared.</p>`
            : html`<table id="documents">
                <tr><th>Reference</th><th>Name</th><th>Type</th><th>Country</th><th>Validity</th></tr>
                ${v.documents.map(
                  (d) =>
                    html`<tr><td><code>${d.documentReference.slice(0, 12)}…</code></td><td>${d.displayName}</td><td>${d.documentType ?? ''}</td><td>${d.issuingCountry ?? ''}</td><td>${d.validityStatus ?? ''}</td></tr>`,
                )}
              </table>
              ${v.documentDetail ? html`<h3>First document in detail</h3>${json(v.documentDetail)}` : ''}`
          : html`<p class="error" id="documents-error">${v.documentsError}</p>`
      }
      <h2>Consent</h2>
      <p>
        You can revoke this application's access on your Verity account page. After that, UserInfo and the
        documents above stop working at once: reload this page and the demo shows Verity's refusal and signs
        you out, a <code>consent.revoked</code> webhook arrives, and the next sign-in asks for your consent
        again.
      </p>
      <p><a class="button secondary" id="revoke" href="${v.accountUrl}" target="_blank" rel="noopener">Revoke consent on your account page</a></p>`,
  );
}

/** The popup's last page: tell the opener (our own origin only) which transaction finished, then close. */
export function popupCompletePage(nonce: string, transactionId: string, appOrigin: string): Html {
  const message = JSON.stringify({ type: 'service:oauth:complete', transactionId });
  return layout(
    'Signed in',
    nonce,
    html`<p>Signed in. This window closes by itself; if it does not, <a href="/">continue here</a>.</p>
      <script nonce="${nonce}">
        if (window.opener) {
          window.opener.postMessage(${raw(message)}, ${raw(JSON.stringify(appOrigin))});
          window.close();
        } else {
          location.replace('/');
        }
      </script>`,
  );
}

export function errorPage(nonce: string, code: string, message: string): Html {
  return layout(
    'Sign-in failed',
    nonce,
    html`<h2>Sign-in did not complete</h2>
      <p class="error" id="error-code"><code>${code}</code></p>
      <p>${message}</p>
      <p><a class="button" href="/">Back to the start</a></p>`,
  );
}

export function webhooksPage(nonce: string, hooks: ReceivedWebhook[], endpoint: string | undefined): Html {
  return layout(
    'Webhooks',
    nonce,
    html`<h2>Received webhooks</h2>
      ${
        endpoint
          ? html`<p class="note">
              Verity posts this application's lifecycle events to <code>${endpoint}</code>. Each one below passed
              signature verification (HMAC-SHA256 over the raw body, timestamp within 300 s) and is stored once
              per event id.
            </p>`
          : html`<p class="error">
              No webhook endpoint is registered: the server must allow http://localhost targets in sandbox
              (<code>[webhooks] allow_localhost_in_sandbox = true</code>; <code>npm start</code> does this).
            </p>`
      }
      ${
        hooks.length === 0
          ? html`<p id="no-webhooks">None yet.</p>`
          : html`<table id="webhooks">
              <tr><th>Type</th><th>Event id</th><th>Created</th><th>Verified</th><th>Data</th></tr>
              ${hooks.map(
                (h) =>
                  html`<tr><td class="event-type">${h.type}</td><td><code>${h.id}</code></td><td>${h.createdAt}</td><td>yes</td><td><pre>${JSON.stringify(h.data, null, 1)}</pre></td></tr>`,
              )}
            </table>`
      }`,
  );
}
