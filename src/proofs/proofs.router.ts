import { Hono } from 'hono';
import { type BearerEnv, bearerGuard } from '../auth/bearer.ts';
import type { AppContext } from '../context.ts';
import type { WebOriginsOf } from '../http/cors.ts';
import { documentProof } from './document-proof.ts';

/** /v1/userinfo/identity-documents/:documentReference/proof, behind the documents API's own guard. */
export function proofsRouter(ctx: AppContext, webOriginsOf: WebOriginsOf) {
  const app = new Hono<BearerEnv>();
  const path = '/v1/userinfo/identity-documents/:documentReference/proof';
  app.use(path, bearerGuard(ctx, webOriginsOf));
  app.get(path, async (c) =>
    c.body(await documentProof(ctx, c.get('grant'), c.req.param('documentReference')), 200, {
      'Content-Type': 'application/jwt',
    }),
  );
  return app;
}
