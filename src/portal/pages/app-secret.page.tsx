/** @jsxImportSource hono/jsx */
import { CopyValue, PortalLayout, type PortalProps, SecretOnce } from './layout.tsx';

/** A reveal of the production secret after it was revealed, rotated or expired. */
/** The one time a client secret is shown: after creation or rotation. */
export function SecretShownPage(
  props: PortalProps & {
    title: string;
    intro?: string;
    appHref: string;
    clientId: string;
    clientSecret?: string;
  },
) {
  const { m } = props;
  return (
    <PortalLayout {...props} title={props.title} section="apps">
      <section class="card">
        <h1>{props.title}</h1>
        {props.intro ? <p>{props.intro}</p> : null}
        <div class="stack">
          <CopyValue m={m} id="client-id" label={m.clientId} value={props.clientId} />
          {props.clientSecret ? (
            <SecretOnce m={m} id="client-secret" label={m.clientSecret} value={props.clientSecret} />
          ) : (
            <p>{m.noSecretPublic}</p>
          )}
        </div>
        <div class="actions">
          <a class="button" href={props.appHref}>
            {m.back}
          </a>
        </div>
      </section>
    </PortalLayout>
  );
}
