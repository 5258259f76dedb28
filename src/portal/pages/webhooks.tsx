/** @jsxImportSource hono/jsx */
import type { ApplicationView } from '../../apps/application.store.ts';
import type { AttemptView, HistoryPage } from '../../webhooks/deliveries.ts';
import type { EndpointView } from '../../webhooks/endpoints.ts';
import { EVENT_TYPES } from '../../webhooks/events.ts';
import type { Env } from '../env.ts';
import {
  CsrfField,
  DataTable,
  ErrorSummary,
  FieldError,
  type FieldErrors,
  FormActions,
  Hint,
  Notice,
  PortalLayout,
  type PortalProps,
  SecretOnce,
  TextField,
  when,
} from './layout.tsx';

interface WebhookProps extends PortalProps {
  app: ApplicationView;
  environment: Env;
}

const hooksBase = (p: WebhookProps) => `${p.base}/apps/${p.app.applicationId}/${p.environment}/webhooks`;

function Heading(props: WebhookProps & { title: string }) {
  return (
    <>
      <h1>{props.title}</h1>
      <p class="muted">
        <a href={`${props.base}/apps/${props.app.applicationId}?env=${props.environment}`}>
          {props.app.name}
        </a>
      </p>
    </>
  );
}

export function EndpointsPage(
  props: WebhookProps & { endpoints: EndpointView[]; notice?: string; error?: string },
) {
  const { m } = props;
  const hb = hooksBase(props);
  const title = m.webhooksTitle(m.envNames[props.environment]!);
  return (
    <PortalLayout {...props} title={title} section="apps">
      <section class="card">
        <Heading {...props} title={title} />
        <p>{m.webhooksIntro}</p>
        <Notice text={props.notice} />
        {props.error ? (
          <p class="alert" role="alert">
            {props.error}
          </p>
        ) : null}
        <div class="actions">
          <a class="button" href={`${hb}/new`}>
            {m.addEndpoint}
          </a>
          <a class="button secondary" href={`${hb}/history`}>
            {m.deliveryHistory}
          </a>
        </div>
      </section>
      {props.endpoints.length === 0 ? (
        <section class="card">
          <p>{m.webhooksEmpty}</p>
        </section>
      ) : (
        props.endpoints.map((e) => (
          <section class="card" aria-labelledby={`ep-${e.id}`}>
            <h2 id={`ep-${e.id}`}>
              <code>{e.url}</code>
            </h2>
            <dl>
              <dt>{m.status}</dt>
              <dd>
                <span class={`pill ${e.enabled ? 'ok' : 'bad'}`}>{e.enabled ? m.enabled : m.disabled}</span>
              </dd>
              <dt>{m.events}</dt>
              <dd>{e.events.join(', ')}</dd>
              {e.description ? (
                <>
                  <dt>{m.description}</dt>
                  <dd>{e.description}</dd>
                </>
              ) : null}
              <dt>{m.endpointId}</dt>
              <dd>
                <code>{e.id}</code>
              </dd>
            </dl>
            <div class="actions">
              <form method="post" action={`${hb}/${e.id}/test`} class="inline">
                <CsrfField token={props.csrf} />
                <button type="submit" disabled={!e.enabled} aria-describedby={`ep-${e.id}`}>
                  {m.sendTest}
                </button>
              </form>
              <form method="post" action={`${hb}/${e.id}/${e.enabled ? 'disable' : 'enable'}`} class="inline">
                <CsrfField token={props.csrf} />
                <button type="submit" class="secondary" aria-describedby={`ep-${e.id}`}>
                  {e.enabled ? m.disable : m.enable}
                </button>
              </form>
              <a class="button secondary" href={`${hb}/${e.id}/edit`} aria-describedby={`ep-${e.id}`}>
                {m.edit}
              </a>
              <a class="button secondary" href={`${hb}/${e.id}/rotate`} aria-describedby={`ep-${e.id}`}>
                {m.rotateWebhookSecret}
              </a>
              <a class="button secondary" href={`${hb}/${e.id}/delete`} aria-describedby={`ep-${e.id}`}>
                {m.delete}
              </a>
              <a
                class="button secondary"
                href={`${hb}/history?endpointId=${e.id}`}
                aria-describedby={`ep-${e.id}`}
              >
                {m.deliveryHistory}
              </a>
            </div>
          </section>
        ))
      )}
    </PortalLayout>
  );
}

export interface EndpointFormValues {
  url: string;
  events: string[];
  description: string;
  enabled: boolean;
}

export function EndpointFormPage(
  props: WebhookProps & {
    mode: 'create' | 'edit';
    action: string;
    values: EndpointFormValues;
    errors?: FieldErrors;
    general?: string;
    urlHint: string;
  },
) {
  const { m, values, errors } = props;
  const title = props.mode === 'create' ? m.addEndpointTitle : m.editEndpointTitle;
  return (
    <PortalLayout {...props} title={title} section="apps">
      <section class="card">
        <Heading {...props} title={title} />
        <form method="post" action={props.action} novalidate>
          <CsrfField token={props.csrf} />
          <ErrorSummary m={m} errors={errors} general={props.general} />
          <TextField
            id="url"
            label={m.endpointUrl}
            type="url"
            hint={props.urlHint}
            value={values.url}
            required
            errors={errors}
          />
          <fieldset
            id="events"
            tabindex={-1}
            aria-describedby={errors?.events ? 'events-hint events-error' : 'events-hint'}
          >
            <legend>{m.events}</legend>
            <Hint id="events" text={m.eventsHint} />
            <FieldError id="events" errors={errors} />
            {EVENT_TYPES.map((t) => (
              <div class="check">
                <input
                  type="checkbox"
                  id={`events-${t}`}
                  name="events"
                  value={t}
                  checked={values.events.includes(t)}
                  aria-describedby={`events-${t}-desc`}
                />
                <div>
                  <label for={`events-${t}`}>
                    <code>{t}</code>
                  </label>
                  <span class="hint block" id={`events-${t}-desc`}>
                    {m.eventDescriptions[t]}
                  </span>
                </div>
              </div>
            ))}
          </fieldset>
          <TextField
            id="description"
            label={`${m.description} ${m.optional}`}
            value={values.description}
            errors={errors}
            maxlength={500}
          />
          {props.mode === 'edit' ? (
            <div class="check">
              <input type="checkbox" id="enabled" name="enabled" value="1" checked={values.enabled} />
              <label for="enabled">{m.endpointEnabledLabel}</label>
            </div>
          ) : null}
          <FormActions
            m={m}
            submit={props.mode === 'create' ? m.addEndpoint : m.save}
            cancelHref={hooksBase(props)}
          />
        </form>
      </section>
    </PortalLayout>
  );
}

export function WebhookSecretPage(
  props: WebhookProps & { title: string; secret: string; endpointUrl: string; previousExpires?: string },
) {
  const { m } = props;
  return (
    <PortalLayout {...props} title={props.title} section="apps">
      <section class="card">
        <Heading {...props} title={props.title} />
        <p>
          <code>{props.endpointUrl}</code>
        </p>
        <SecretOnce m={m} id="webhook-secret" label={m.signingSecret} value={props.secret} />
        {props.previousExpires ? <p>{m.previousExpires(when(props.previousExpires, m))}</p> : null}
        <div class="actions">
          <a class="button" href={hooksBase(props)}>
            {m.back}
          </a>
        </div>
      </section>
    </PortalLayout>
  );
}

export function RotateWebhookPage(props: WebhookProps & { endpoint: EndpointView }) {
  const { m } = props;
  const hb = hooksBase(props);
  return (
    <PortalLayout {...props} title={m.rotateWebhookTitle} section="apps">
      <section class="card">
        <Heading {...props} title={m.rotateWebhookTitle} />
        <p>
          <code>{props.endpoint.url}</code>
        </p>
        <p>{m.rotateWebhookIntro}</p>
        <form method="post" action={`${hb}/${props.endpoint.id}/rotate`}>
          <CsrfField token={props.csrf} />
          <fieldset>
            <legend>{m.overlap}</legend>
            {m.overlapChoices.map(([value, label]) => (
              <div class="check">
                <input
                  type="radio"
                  id={`overlap-${value}`}
                  name="overlap"
                  value={value}
                  checked={value === '86400'}
                />
                <label for={`overlap-${value}`}>{label}</label>
              </div>
            ))}
          </fieldset>
          <FormActions m={m} submit={m.rotateConfirm} cancelHref={hb} />
        </form>
      </section>
    </PortalLayout>
  );
}

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

export function HistoryPageView(
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
