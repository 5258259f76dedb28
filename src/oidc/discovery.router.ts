import { Hono } from 'hono';
import type { AppContext } from '../context.ts';
import type { AppEnv } from '../http/env.ts';

/** /.well-known/openid-configuration and /.well-known/oauth-authorization-server */
export function discoveryRouter(_ctx: AppContext) {
  const app = new Hono<AppEnv>();
  return app;
}
