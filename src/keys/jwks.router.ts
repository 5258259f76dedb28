import { Hono } from 'hono';
import type { AppContext } from '../context.ts';
import type { AppEnv } from '../http/env.ts';
import { JWKS_MAX_AGE_SECONDS } from './jwks-cache.ts';

export function jwksRouter(ctx: AppContext) {
  const app = new Hono<AppEnv>();
  app.get('/.well-known/jwks.json', async (c) =>
    c.body(await ctx.keys.jwksBody(), 200, {
      'Content-Type': 'application/json',
      'Cache-Control': `public, max-age=${JWKS_MAX_AGE_SECONDS}`,
    }),
  );
  return app;
}
