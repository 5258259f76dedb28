import { type Context, Hono } from 'hono';
import ipaddr from 'ipaddr.js';
import type { AppContext } from '../context.ts';
import { timingSafeEqual } from '../crypto/tokens.ts';
import { ApiError } from '../errors.ts';
import { VERSION } from '../version.ts';
import type { AppEnv } from './env.ts';
import { probeWrite } from './rate-limit.store.ts';

const isLoopback = (ip: string) => ipaddr.isValid(ip) && ipaddr.process(ip).range() === 'loopback';

/**
 * `/metrics` names routes, clients' volumes and security events: it answers a loopback client (the
 * address as the rest of the app sees it, so after `trust_proxy`) or a bearer of `[server] metrics_token`.
 */
async function mayReadMetrics(ctx: AppContext, c: Context<AppEnv>): Promise<boolean> {
  if (isLoopback(c.get('clientIp'))) return true;
  const token = ctx.config.server.metrics_token;
  const sent = /^Bearer (.+)$/i.exec(c.req.header('authorization') ?? '')?.[1];
  return token !== '' && sent !== undefined && (await timingSafeEqual(sent, token));
}

/** Operations endpoints: liveness, readiness (public) and Prometheus metrics (protected). */
export function opsRouter(ctx: AppContext) {
  const app = new Hono<AppEnv>();
  app.get('/healthz', (c) => c.json({ status: 'ok', version: VERSION }));
  // The write probe runs at most once a second (by the clock), so probing /readyz is not a way to
  // make the server run write transactions.
  let probed: { at: number; writable: boolean } | undefined;
  const databaseWritable = () => {
    const now = ctx.clock.now().getTime();
    if (!probed || now - probed.at >= 1000 || now < probed.at)
      probed = { at: now, writable: databaseTakesWrites(ctx) };
    return probed.writable;
  };
  app.get('/readyz', async (c) => {
    const problems: string[] = [];
    if (!databaseWritable()) problems.push('database not writable');
    if (!ctx.keys.hasActive()) problems.push('no active signing key');
    else {
      try {
        // Tokens need the active private keys and relying parties the key set: both must build (a
        // refresh loads the active key of every algorithm).
        await ctx.keys.signingKey();
        await ctx.keys.jwksBody();
      } catch {
        problems.push('signing key or JWKS unavailable');
      }
    }
    return problems.length ? c.json({ status: 'unavailable', problems }, 503) : c.json({ status: 'ready' });
  });
  app.get('/metrics', async (c) => {
    if (!(await mayReadMetrics(ctx, c)))
      throw new ApiError(
        'UNAUTHORIZED',
        'Metrics are served to loopback clients or with the metrics token.',
        401,
        undefined,
        {
          'WWW-Authenticate': 'Bearer realm="verity"',
        },
      );
    return c.text(ctx.metrics.render(), 200, { 'Content-Type': 'text/plain; version=0.0.4' });
  });
  return app;
}

function databaseTakesWrites(ctx: AppContext): boolean {
  try {
    probeWrite(ctx.db);
    return true;
  } catch {
    return false;
  }
}
