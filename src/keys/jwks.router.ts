import { Hono } from 'hono';
import { JWKS_MAX_AGE_SECONDS } from '../config/schema.ts';
import type { AppContext } from '../context.ts';
import { PUBLIC_CORS_HEADERS } from '../http/cors.ts';
import type { AppEnv } from '../http/env.ts';

export function jwksRouter(ctx: AppContext) {
  const app = new Hono<AppEnv>();
  app.get('/.well-known/jwks.json', async (c) =>
    c.body(await ctx.keys.jwksBody(), 200, {
      'Content-Type': 'application/json',
      'Cache-Control': `public, max-age=${JWKS_MAX_AGE_SECONDS}`,
      ...PUBLIC_CORS_HEADERS,
    }),
  );
  return app;
}
