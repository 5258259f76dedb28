import { Hono } from 'hono';
import type { AppContext } from '../context.ts';
import type { AppEnv } from '../http/env.ts';

/** GET/POST /v1/userinfo */
export function userinfoRouter(_ctx: AppContext) {
  const app = new Hono<AppEnv>();
  return app;
}
