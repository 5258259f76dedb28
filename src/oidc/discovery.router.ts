import { Hono } from 'hono';
import type { AppContext } from '../context.ts';
import { PUBLIC_CORS_HEADERS } from '../http/cors.ts';
import type { AppEnv } from '../http/env.ts';
import { discoveryDocument } from './discovery.ts';

/** /.well-known/openid-configuration and /.well-known/oauth-authorization-server */
export function discoveryRouter(ctx: AppContext) {
  const app = new Hono<AppEnv>();
  // Serialised once: the document only changes with the configuration.
  const body = JSON.stringify(discoveryDocument(ctx.config));
  const headers = {
    'Content-Type': 'application/json',
    'Cache-Control': 'public, max-age=300',
    ...PUBLIC_CORS_HEADERS,
  };
  app.get('/.well-known/openid-configuration', (c) => c.body(body, 200, headers));
  app.get('/.well-known/oauth-authorization-server', (c) => c.body(body, 200, headers));
  return app;
}
