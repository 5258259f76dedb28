import { Hono } from 'hono';
import type { AppContext } from '../context.ts';
import type { AppEnv } from '../http/env.ts';

/** The developer portal, mounted at the path of `[server] developer_url`. */
export function portalRouter(_ctx: AppContext) {
  const app = new Hono<AppEnv>();
  return app;
}
