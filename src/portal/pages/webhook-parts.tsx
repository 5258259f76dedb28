/** @jsxImportSource hono/jsx */
import type { ApplicationView } from '../../apps/application.store.ts';
import type { Env } from '../env.ts';
import type { PortalProps } from './layout.tsx';

export interface WebhookProps extends PortalProps {
  app: ApplicationView;
  environment: Env;
}

export const hooksBase = (p: WebhookProps) =>
  `${p.base}/apps/${p.app.applicationId}/${p.environment}/webhooks`;

export function Heading(props: WebhookProps & { title: string }) {
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
