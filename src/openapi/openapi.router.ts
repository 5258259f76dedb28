import { Hono } from 'hono';
import type { AppContext } from '../context.ts';
import type { AppEnv } from '../http/env.ts';

/**
 * GET /openapi.json: built on its first request, then kept, since it changes only with the
 * configuration. Built at start, its conversion to JSON Schema held about 7 MiB of an idle server
 * (docs/architecture.md#memory); the module that builds it is a chunk of its own in the binary.
 */
export function openApiRouter(ctx: AppContext) {
  const app = new Hono<AppEnv>();
  let body: Promise<string> | undefined;
  const build = async () => JSON.stringify((await import('./document.ts')).openApiDocument(ctx.config));
  const headers = { 'Content-Type': 'application/json', 'Cache-Control': 'public, max-age=300' };
  app.get('/openapi.json', async (c) => {
    body ??= build();
    return c.body(await body, 200, headers);
  });
  return app;
}
