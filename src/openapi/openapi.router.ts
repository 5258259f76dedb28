import { Hono } from 'hono';
import type { AppContext } from '../context.ts';
import type { AppEnv } from '../http/env.ts';
import { openApiDocument } from './document.ts';

/** GET /openapi.json: built once, since it changes only with the configuration. */
export function openApiRouter(ctx: AppContext) {
  const app = new Hono<AppEnv>();
  const body = JSON.stringify(openApiDocument(ctx.config));
  const headers = { 'Content-Type': 'application/json', 'Cache-Control': 'public, max-age=300' };
  app.get('/openapi.json', (c) => c.body(body, 200, headers));
  return app;
}
