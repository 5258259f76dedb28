/** @jsxImportSource hono/jsx */
import type { EndpointView } from '../../webhooks/endpoints.ts';
import { CsrfField, Notice, PortalLayout } from './layout.tsx';
import { Heading, hooksBase, type WebhookProps } from './webhook-parts.tsx';

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
