import { Hono } from 'hono';
import type { AppContext } from '../context.ts';
import type { AppEnv } from '../http/env.ts';

/** The hosted identity experience, mounted at the path of `[server] identity_url`. */
export function identityRouter(_ctx: AppContext) {
  const app = new Hono<AppEnv>();
  return app;
}
