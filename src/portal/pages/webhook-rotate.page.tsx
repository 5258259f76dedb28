/** @jsxImportSource hono/jsx */
import type { EndpointView } from '../../webhooks/endpoints.ts';
import { CsrfField, FormActions, PortalLayout } from './layout.tsx';
import { Heading, hooksBase, type WebhookProps } from './webhook-parts.tsx';

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
