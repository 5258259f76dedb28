import type { AppContext } from '../context.ts';
import type { Logger } from '../log.ts';
import type { ConnInfo } from '../platform/listen.ts';

/** Hono environment shared by every surface. */
export interface AppEnv {
  Bindings: ConnInfo | undefined;
  Variables: {
    requestId: string;
    log: Logger;
    ctx: AppContext;
    /** Client address after `trust_proxy`. */
    clientIp: string;
  };
}
