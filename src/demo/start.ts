import type { AppContext } from '../context.ts';
import { parseListen } from '../platform/listen.ts';
import { runtime } from '../platform/runtime.ts';
import { createVerityClient, sqliteTransactionStore } from '../sdk/index.ts';
import { createDemoApp } from './app.ts';
import { createDemoStore, openDemoDatabase } from './demo.store.ts';
import { type DemoRegistration, demoDatabasePath, ensureDemoRegistration } from './registration.ts';

export interface RunningDemo {
  url: string;
  registration: DemoRegistration;
  stop(): Promise<void>;
}

/**
 * Starts the demo relying party: its own SQLite file beside Verity's database (transactions, sessions,
 * received webhooks), its sandbox application (registered on first run only), and its web app, which
 * talks to Verity over HTTP at `server.base_url` through the SDK like any other integrator.
 */
export async function startDemo(ctx: AppContext, opts: { port?: number } = {}): Promise<RunningDemo> {
  const addr = parseListen(ctx.config.demo.listen);
  const port = opts.port ?? addr.port;
  // The redirect URI is registered from this, so it must be stable across restarts.
  const url = ctx.config.demo.url || `http://localhost:${port}`;
  const registration = await ensureDemoRegistration(ctx, url);

  const db = await openDemoDatabase(demoDatabasePath(ctx));
  const store = createDemoStore(db);
  const client = createVerityClient({
    issuer: ctx.config.server.base_url,
    clientId: registration.clientId,
    clientSecret: registration.clientSecret,
    redirectUri: registration.redirectUri,
    store: sqliteTransactionStore(db, 'demo_transactions'),
    clock: ctx.clock,
  });
  const app = createDemoApp({ ctx, client, store, registration, url });
  const server = await runtime.listen((req) => app.fetch(req), { hostname: addr.hostname, port });
  return {
    url,
    registration,
    async stop() {
      await server.close();
      db.close();
    },
  };
}
