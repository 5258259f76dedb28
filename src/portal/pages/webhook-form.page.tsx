/** @jsxImportSource hono/jsx */
import { EVENT_TYPES } from '../../webhooks/events.ts';
import {
  CsrfField,
  ErrorSummary,
  FieldError,
  type FieldErrors,
  FormActions,
  Hint,
  PortalLayout,
  TextField,
} from './layout.tsx';
import { Heading, hooksBase, type WebhookProps } from './webhook-parts.tsx';

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
