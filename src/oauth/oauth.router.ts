import { Hono } from 'hono';
import type { AppContext } from '../context.ts';
import type { AppEnv } from '../http/env.ts';

/** GET/POST /v1/oauth/authorize and POST /v1/oauth/token */
export function oauthRouter(_ctx: AppContext) {
  const app = new Hono<AppEnv>();
  return app;
}
