import { JWKS_MAX_AGE_SECONDS } from '../config/schema.ts';
import type { AppContext } from '../context.ts';
import { publicDocument } from '../http/public-document.ts';
import type { Routes } from '../platform/listen.ts';

const PATH = '/.well-known/jwks.json';

/** /.well-known/jwks.json, ahead of hono; the body is cached by the key service until keys change. */
export const jwksRoutes = (ctx: AppContext): Routes => ({
  [PATH]: {
    GET: publicDocument(ctx, PATH, () => ctx.keys.jwksBody(), `public, max-age=${JWKS_MAX_AGE_SECONDS}`),
  },
});
