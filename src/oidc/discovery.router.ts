import type { AppContext } from '../context.ts';
import { publicDocument } from '../http/public-document.ts';
import type { Routes } from '../platform/listen.ts';
import { discoveryDocument } from './discovery.ts';

/** /.well-known/openid-configuration and /.well-known/oauth-authorization-server, ahead of hono. */
export function discoveryRoutes(ctx: AppContext): Routes {
  // Serialised once: the document only changes with the configuration.
  const body = JSON.stringify(discoveryDocument(ctx.config));
  const routes: Routes = {};
  for (const path of ['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server'])
    routes[path] = { GET: publicDocument(ctx, path, () => body, 'public, max-age=300') };
  return routes;
}
