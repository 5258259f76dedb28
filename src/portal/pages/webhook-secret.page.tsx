/** @jsxImportSource hono/jsx */
import { PortalLayout, SecretOnce, when } from './layout.tsx';
import { Heading, hooksBase, type WebhookProps } from './webhook-parts.tsx';

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
