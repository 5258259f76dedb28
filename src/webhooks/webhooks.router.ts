import { Hono } from 'hono';
import type { AppContext } from '../context.ts';
import type { AppEnv } from '../http/env.ts';

/** /v1/developer/applications/:applicationId/webhooks/* */
export function webhooksRouter(_ctx: AppContext) {
  const app = new Hono<AppEnv>();
  return app;
}
