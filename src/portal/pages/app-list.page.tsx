/** @jsxImportSource hono/jsx */
import type { ApplicationView } from '../../apps/application.store.ts';
import { DataTable, Notice, PortalLayout, type PortalProps } from './layout.tsx';

export function AppsListPage(props: PortalProps & { apps: ApplicationView[]; notice?: string }) {
  const { m, base } = props;
  return (
    <PortalLayout {...props} title={m.appsTitle}>
      <section class="card">
        <h1>{m.appsTitle}</h1>
        <Notice text={props.notice} />
        <div class="actions">
          <a class="button" href={`${base}/apps/new`}>
            {m.newApp}
          </a>
        </div>
        <DataTable
          empty={m.appsEmpty}
          headings={[m.appName, m.appType, m.environment, m.reviewStatus]}
          rows={props.apps}
        >
          {props.apps.map((a) => (
            <tr>
              <td>
                <a href={`${base}/apps/${a.applicationId}`}>{a.name}</a>
              </td>
              <td>{a.type === 'confidential' ? m.typeConfidential : m.typePublic}</td>
              <td>{a.environments.map((e) => m.envNames[e.environment]).join(', ')}</td>
              <td>{a.latestReview ? m.reviewStatusNames[a.latestReview.status] : m.none}</td>
            </tr>
          ))}
        </DataTable>
      </section>
    </PortalLayout>
  );
}
