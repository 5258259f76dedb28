/** @jsxImportSource hono/jsx */
import type { AttemptView, HistoryPage } from '../../webhooks/deliveries.ts';
import type { EndpointView } from '../../webhooks/endpoints.ts';
import { EVENT_TYPES } from '../../webhooks/events.ts';
import {
  CsrfField,
  DataTable,
  ErrorSummary,
  type FieldErrors,
  Notice,
  PortalLayout,
  when,
} from './layout.tsx';
import { Heading, hooksBase, type WebhookProps } from './webhook-parts.tsx';

export interface HistoryFilters {
  endpointId?: string;
  eventType?: string;
  status?: string;
}

function AttemptRow(props: WebhookProps & { a: AttemptView; endpoints: EndpointView[] }) {
  const { m, a } = props;
  const endpoint = props.endpoints.find((e) => e.id === a.endpointId);
  return (
    <tr>
      <td>{when(a.attemptedAt, m)}</td>
      <td>
        <code>{a.eventType}</code>
        <br />
        <code class="hint">{a.eventId}</code>
      </td>
      <td>
        <code>{endpoint?.url ?? a.endpointId}</code>
      </td>
      <td>{a.attempt}</td>
      <td>
        <span class={`pill ${a.status === 'delivered' ? 'ok' : a.status === 'failed' ? 'bad' : 'wait'}`}>
          {m.attemptStatusNames[a.status]}
        </span>
      </td>
      <td>{a.responseStatus ?? '–'}</td>
      <td>{a.error ?? ''}</td>
      <td>{`${a.durationMs} ms`}</td>
      <td>{a.nextAttemptAt ? when(a.nextAttemptAt, m) : '–'}</td>
      <td>
        <form method="post" action={`${hooksBase(props)}/events/${a.eventId}/redeliver`} class="inline">
          <CsrfField token={props.csrf} />
          <input type="hidden" name="endpointId" value={a.endpointId} />
          <button type="submit" class="secondary" aria-label={`${m.redeliver} ${a.eventType} ${a.eventId}`}>
            {m.redeliver}
          </button>
        </form>
      </td>
    </tr>
  );
}

export function WebhookHistoryPage(
  props: WebhookProps & {
    history: HistoryPage;
    endpoints: EndpointView[];
    filters: HistoryFilters;
    notice?: string;
    errors?: FieldErrors;
    nextHref?: string;
  },
) {
  const { m, filters } = props;
  const hb = hooksBase(props);
  const title = m.historyTitle(m.envNames[props.environment]!);
  const select = (id: string, label: string, all: string, options: [string, string][], value?: string) => (
    <div>
      <label for={id}>{label}</label>
      <select id={id} name={id}>
        <option value="">{all}</option>
        {options.map(([v, l]) => (
          <option value={v} selected={v === value}>
            {l}
          </option>
        ))}
      </select>
    </div>
  );
  return (
    <PortalLayout {...props} title={title} section="apps">
      <section class="card">
        <Heading {...props} title={title} />
        <Notice text={props.notice} />
        <ErrorSummary m={m} errors={props.errors} />
        <form method="get" action={`${hb}/history`} class="filters" aria-label={m.filter}>
          {select(
            'endpointId',
            m.endpoint,
            m.allEndpoints,
            props.endpoints.map((e) => [e.id, e.url]),
            filters.endpointId,
          )}
          {select(
            'eventType',
            m.eventType,
            m.allEventTypes,
            EVENT_TYPES.map((t) => [t, t]),
            filters.eventType,
          )}
          {select('status', m.status, m.allStatuses, Object.entries(m.attemptStatusNames), filters.status)}
          <button type="submit">{m.filter}</button>
        </form>
        <div class="actions">
          <a class="button secondary" href={hb}>
            {m.webhooks}
          </a>
        </div>
      </section>
      <section class="card">
        <DataTable
          empty={m.historyEmpty}
          headings={[
            m.attemptedAt,
            m.eventType,
            m.endpoint,
            m.attempt,
            m.status,
            m.responseStatus,
            m.error,
            m.duration,
            m.nextAttempt,
            m.actions,
          ]}
          rows={props.history.deliveries}
        >
          {props.history.deliveries.map((a) => (
            <AttemptRow {...props} a={a} endpoints={props.endpoints} />
          ))}
        </DataTable>
        {props.nextHref ? (
          <p>
            <a href={props.nextHref}>{m.olderDeliveries}</a>
          </p>
        ) : null}
      </section>
    </PortalLayout>
  );
}
