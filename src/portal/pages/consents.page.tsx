/** @jsxImportSource hono/jsx */
import type { ApplicationView } from '../../apps/application.store.ts';
import type { SandboxConsent } from '../../consent/lifecycle.store.ts';
import { CsrfField, DataTable, Notice, PortalLayout, type PortalProps, when } from './layout.tsx';

export function SandboxConsentsPage(
  props: PortalProps & {
    app: ApplicationView;
    consents: SandboxConsent[];
    notice?: string;
  },
) {
  const { m, base, app } = props;
  const root = `${base}/apps/${app.applicationId}/sandbox/consents`;
  return (
    <PortalLayout {...props} title={m.sandboxConsents} section="apps">
      <section class="card">
        <h1>{m.sandboxConsents}</h1>
        <p class="muted">
          <a href={`${base}/apps/${app.applicationId}`}>{app.name}</a>
        </p>
        <p>{m.sandboxConsentsIntro}</p>
        <Notice text={props.notice} />
      </section>
      <section class="card">
        <DataTable
          empty={m.sandboxConsentsEmpty}
          headings={[m.persona, m.purpose, m.grantedScopes, m.grantedAt, m.actions]}
          rows={props.consents}
        >
          {props.consents.map((c) => {
            const purpose = c.purpose || m.noPurpose;
            return (
              <tr>
                <td>{c.personName}</td>
                <td>{purpose}</td>
                <td>
                  {c.scopes.map((s, i) => (
                    <>
                      {i ? ' ' : ''}
                      <code>{s}</code>
                    </>
                  ))}
                </td>
                <td>{when(c.grantedAt, m)}</td>
                <td>
                  <form method="post" action={`${root}/${c.id}/revoke`} class="inline">
                    <CsrfField token={props.csrf} />
                    <button
                      type="submit"
                      class="secondary"
                      aria-label={m.revokeConsentLabel(c.personName, purpose)}
                    >
                      {m.revoke}
                    </button>
                  </form>
                </td>
              </tr>
            );
          })}
        </DataTable>
      </section>
    </PortalLayout>
  );
}
