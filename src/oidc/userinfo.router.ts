import { Hono } from 'hono';
import { type BearerEnv, bearerGuard } from '../auth/bearer.ts';
import type { AppContext } from '../context.ts';
import type { WebOriginsOf } from '../http/cors.ts';
import { userinfoFor } from './userinfo.ts';

/** GET/POST /v1/userinfo (OIDC Core §5.3: both methods; POST may carry the token in a form body). */
export function userinfoRouter(ctx: AppContext, webOriginsOf: WebOriginsOf) {
  const app = new Hono<BearerEnv>();
  app.use('/v1/userinfo', ...bearerGuard(ctx, webOriginsOf));
  app.on(['GET', 'POST'], '/v1/userinfo', async (c) => c.json(await userinfoFor(ctx, c.get('grant'))));
  return app;
}
