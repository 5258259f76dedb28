import { Hono } from 'hono';
import type { AppContext } from '../context.ts';
import { VERSION } from '../version.ts';
import type { AppEnv } from './env.ts';

/** Operations endpoints: liveness, readiness and Prometheus metrics. */
export function opsRouter(ctx: AppContext) {
  const app = new Hono<AppEnv>();
  app.get('/healthz', (c) => c.json({ status: 'ok', version: VERSION }));
  // The write probe runs at most once a second (by the clock), so probing /readyz is not a way to
  // make the server run write transactions.
  let probed: { at: number; writable: boolean } | undefined;
  const databaseWritable = () => {
    const now = ctx.clock.now().getTime();
    if (!probed || now - probed.at >= 1000 || now < probed.at)
      probed = { at: now, writable: probeWrite(ctx) };
    return probed.writable;
  };
  app.get('/readyz', async (c) => {
    const problems: string[] = [];
    if (!databaseWritable()) problems.push('database not writable');
    if (!ctx.keys.hasActive()) problems.push('no active signing key');
    else {
      try {
        // Tokens need the active private key and relying parties the key set: both must build.
        await ctx.keys.signingKey();
        await ctx.keys.jwksBody();
      } catch {
        problems.push('signing key or JWKS unavailable');
      }
    }
    return problems.length ? c.json({ status: 'unavailable', problems }, 503) : c.json({ status: 'ready' });
  });
  app.get('/metrics', (c) =>
    c.text(ctx.metrics.render(), 200, { 'Content-Type': 'text/plain; version=0.0.4' }),
  );
  return app;
}

function probeWrite(ctx: AppContext): boolean {
  try {
    ctx.db.sql.transaction(() => {
      ctx.db.sql.prepare('CREATE TEMP TABLE IF NOT EXISTS _ready (x INTEGER) STRICT').run();
      ctx.db.sql.prepare('INSERT INTO _ready (x) VALUES (1)').run();
      ctx.db.sql.prepare('DELETE FROM _ready').run();
    });
    // A temp table proves little about the main file: write to it too.
    ctx.db.sql
      .prepare(
        "INSERT OR REPLACE INTO rate_limit_buckets (key, window_start, count) VALUES ('_readyz', 0, 0)",
      )
      .run();
    return true;
  } catch {
    return false;
  }
}
