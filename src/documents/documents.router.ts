import { Hono } from 'hono';
import { type BearerEnv, bearerGuard } from '../auth/bearer.ts';
import type { AppContext } from '../context.ts';
import type { WebOriginsOf } from '../http/cors.ts';
import { getSharedDocument, listSharedDocuments } from './documents.ts';

/** /v1/userinfo/identity-documents */
export function documentsRouter(ctx: AppContext, webOriginsOf: WebOriginsOf) {
  const app = new Hono<BearerEnv>();
  const list = '/v1/userinfo/identity-documents';
  const one = '/v1/userinfo/identity-documents/:documentReference';
  app.use(list, bearerGuard(ctx, webOriginsOf));
  app.use(one, bearerGuard(ctx, webOriginsOf));

  app.get(list, async (c) => c.json({ data: { documents: await listSharedDocuments(ctx, c.get('grant')) } }));

  app.get(one, async (c) =>
    c.json({ data: await getSharedDocument(ctx, c.get('grant'), c.req.param('documentReference')) }),
  );
  return app;
}
