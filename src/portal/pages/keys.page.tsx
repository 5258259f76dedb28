/** @jsxImportSource hono/jsx */
import type { ApiKeySummary } from '../../developer/api-key.store.ts';
import {
  CsrfField,
  DataTable,
  ErrorSummary,
  type FieldErrors,
  Notice,
  PortalLayout,
  type PortalProps,
  SecretOnce,
  TextField,
  when,
} from './layout.tsx';

export function KeysPage(
  props: PortalProps & {
    keys: ApiKeySummary[];
    created?: { key: string };
    notice?: string;
    errors?: FieldErrors;
    label?: string;
  },
) {
  const { m, base } = props;
  return (
    <PortalLayout {...props} title={m.keysTitle} section="keys">
      <section class="card">
        <h1>{m.keysTitle}</h1>
        <p>{m.keysIntro}</p>
        <Notice text={props.notice} />
        {props.created ? (
          <div role="status">
            <h2>{m.keyCreatedTitle}</h2>
            <SecretOnce m={m} id="api-key" label={m.keyCreatedTitle} value={props.created.key} />
          </div>
        ) : null}
        <form method="post" action={`${base}/keys`} novalidate>
          <CsrfField token={props.csrf} />
          <ErrorSummary m={m} errors={props.errors} />
          <TextField
            id="label"
            label={`${m.keyLabel} ${m.optional}`}
            hint={m.keyLabelHint}
            value={props.label}
            errors={props.errors}
            maxlength={100}
          />
          <label for="environment">{m.keyEnvironment}</label>
          <select id="environment" name="environment">
            <option value="sandbox">{m.envNames.sandbox}</option>
            <option value="production">{m.envNames.production}</option>
          </select>
          <button type="submit">{m.createKey}</button>
        </form>
      </section>
      <section class="card">
        <DataTable
          empty={m.keysEmpty}
          headings={[m.keyLabel, m.keyId, m.environment, m.created, m.lastUsed, m.status, m.actions]}
          rows={props.keys}
        >
          {props.keys.map((k) => (
            <tr>
              <td>{k.label || m.none}</td>
              <td>
                <code>{k.keyId}</code>
              </td>
              <td>{m.envNames[k.environment]}</td>
              <td>{when(k.createdAt, m)}</td>
              <td>{when(k.lastUsedAt, m)}</td>
              <td>{k.revokedAt === null ? m.active : `${m.revoked} ${when(k.revokedAt, m)}`}</td>
              <td>
                {k.revokedAt === null ? (
                  <a href={`${base}/keys/${k.keyId}/revoke`} aria-label={`${m.revoke} ${k.label || k.keyId}`}>
                    {m.revoke}
                  </a>
                ) : null}
              </td>
            </tr>
          ))}
        </DataTable>
      </section>
    </PortalLayout>
  );
}
