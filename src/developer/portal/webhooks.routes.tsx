import { Hono } from 'hono';
import type { Portal, PortalEnv } from './env.ts';

/** Webhook endpoints, test events, secret rotation and delivery history of one application environment. */
export function webhooksRoutes(_p: Portal) {
  return new Hono<PortalEnv>();
}
