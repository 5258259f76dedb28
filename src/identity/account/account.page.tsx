/** @jsxImportSource hono/jsx */
import { CsrfField, Layout } from '../pages/layout.tsx';
import type { AccountOverview } from './account.ts';
import type { AccountProps } from './account-props.ts';

const ACCOUNT_CSS = `
.apps,.docs{list-style:none;padding:0;margin:0;display:grid;gap:1rem}
.app,.doc{border:1px solid #d5dae1;border-radius:.75rem;padding:1rem}
.app h3,.doc h3{margin:0 0 .25rem;font-size:1.05rem}
.consent{border-top:1px solid #d5dae1;margin-top:.75rem;padding-top:.75rem}
.consent dl{margin:.5rem 0}
.notice{border-left:4px solid #1d7a3a;background:#eef8f1;color:#14532d;padding:.75rem 1rem;border-radius:.25rem;margin:1rem 0}
button[role=switch]{display:flex;justify-content:space-between;align-items:center;gap:1rem}
button[role=switch][aria-checked=false]{background:#fff;color:#1b1f24;border-color:#6b7482}
.switch-track{width:2.5rem;height:1.4rem;border-radius:999px;background:#fff;position:relative;flex:none;border:2px solid currentColor}
.switch-track::after{content:"";position:absolute;top:.15rem;left:.15rem;width:.9rem;height:.9rem;border-radius:50%;background:currentColor}
button[role=switch][aria-checked=true] .switch-track::after{left:auto;right:.15rem}
.topbar{display:flex;justify-content:space-between;align-items:center;gap:1rem}
.topbar button{width:auto;margin:0}
@media (prefers-color-scheme:dark){
 .app,.doc,.consent{border-color:#3a414c}
 .notice{background:#12301d;color:#c9f0d6}
 button[role=switch][aria-checked=false]{background:#1d2128;color:#e8ebef;border-color:#8b95a3}
}
`;

const fmt = new Intl.DateTimeFormat('en-GB', {
  dateStyle: 'medium',
  timeStyle: 'short',
  timeZone: 'UTC',
});

const When = ({ at }: { at: number }) => {
  const d = new Date(at * 1000);
  return <time datetime={d.toISOString()}>{`${fmt.format(d)} UTC`}</time>;
};

/** Connected applications with Revoke and Disconnect, and the documents with their sharing switches. */
export function AccountPage(
  props: AccountProps & { personName: string; overview: AccountOverview; notice?: string },
) {
  const { m, a, base, overview } = props;
  return (
    <Layout {...props} title={a.title}>
      <style nonce={props.nonce} dangerouslySetInnerHTML={{ __html: ACCOUNT_CSS }} />
      <div class="topbar">
        <h1>{a.title}</h1>
        <form method="post" action={`${base}/signout`}>
          <CsrfField token={props.csrf} />
          <button type="submit" class="secondary">
            {a.signOut}
          </button>
        </form>
      </div>
      <p class="muted">{a.signedInAs(props.personName)}</p>
      {props.notice ? (
        <p class="notice" role="status">
          {props.notice}
        </p>
      ) : null}

      <h2 id="apps-heading">{a.appsHeading}</h2>
      {overview.applications.length === 0 ? (
        <p>{a.appsNone}</p>
      ) : (
        <ul class="apps" aria-labelledby="apps-heading">
          {overview.applications.map((app) => (
            <li class="app">
              <h3>
                {app.name}
                {app.environment === 'sandbox' ? ` (${a.sandboxApp})` : ''}
              </h3>
              {app.consents.map((c) => (
                <div class="consent">
                  <p>
                    <strong>{a.purpose}:</strong> {c.purpose || a.noPurpose}
                  </p>
                  <p>{a.canSee}:</p>
                  <ul class="scopes">
                    {c.scopes.map((s) => (
                      <li>{m.scopes[s] ?? s}</li>
                    ))}
                  </ul>
                  <dl>
                    <dt>{a.given}</dt>
                    <dd>
                      <When at={c.grantedAt} />
                    </dd>
                    <dt>{a.lastUsed}</dt>
                    <dd>{c.lastUsedAt === null ? a.neverUsed : <When at={c.lastUsedAt} />}</dd>
                    <dt>{a.expires}</dt>
                    <dd>
                      <When at={c.expiresAt} />
                    </dd>
                  </dl>
                  <form method="post" action={`${base}/consents/${encodeURIComponent(c.id)}/revoke`}>
                    <CsrfField token={props.csrf} />
                    <button
                      type="submit"
                      class="danger"
                      aria-label={a.revokeLabel(app.name, c.purpose || a.noPurpose)}
                    >
                      {a.revoke}
                    </button>
                  </form>
                </div>
              ))}
              <form
                method="post"
                action={`${base}/applications/${encodeURIComponent(app.applicationId)}/disconnect`}
                class="consent"
              >
                <CsrfField token={props.csrf} />
                <p class="muted" id={`disconnect-${app.applicationId}`}>
                  {a.disconnectHelp}
                </p>
                <button
                  type="submit"
                  class="danger"
                  aria-label={a.disconnectLabel(app.name)}
                  aria-describedby={`disconnect-${app.applicationId}`}
                >
                  {a.disconnect}
                </button>
              </form>
            </li>
          ))}
        </ul>
      )}

      <h2 id="docs-heading">{a.documentsHeading}</h2>
      {overview.documents.length === 0 ? (
        <p>{a.documentsNone}</p>
      ) : (
        <>
          <p class="muted">{a.documentsIntro}</p>
          <ul class="docs" aria-labelledby="docs-heading">
            {overview.documents.map((d) => (
              <li class="doc">
                <h3>{d.displayName}</h3>
                <p class="muted">
                  {a.validity[d.validityStatus] ?? d.validityStatus} · {a.expiresOn(d.expiryDate)}
                </p>
                <form method="post" action={`${base}/documents/${encodeURIComponent(d.id)}/sharing`}>
                  <CsrfField token={props.csrf} />
                  <input type="hidden" name="share" value={d.shareEnabled ? 'off' : 'on'} />
                  <button
                    type="submit"
                    role="switch"
                    aria-checked={d.shareEnabled ? 'true' : 'false'}
                    aria-describedby={`sharing-${d.id}`}
                  >
                    <span>{a.shareLabel(d.displayName)}</span>
                    <span class="switch-track" aria-hidden="true" />
                  </button>
                  <p class="muted" id={`sharing-${d.id}`}>
                    {d.shareEnabled ? a.sharingOn : a.sharingOff}
                  </p>
                </form>
              </li>
            ))}
          </ul>
        </>
      )}
    </Layout>
  );
}
