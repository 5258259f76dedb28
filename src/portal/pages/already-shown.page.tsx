/** @jsxImportSource hono/jsx */
import { GonePage } from './gone.page.tsx';
import type { PortalProps } from './layout.tsx';

/** What a reload of a result page shows once its result was taken. */
export function AlreadyShownPage(props: PortalProps & { backHref: string }) {
  return <GonePage {...props} title={props.m.alreadyShownTitle} message={props.m.alreadyShown} />;
}
