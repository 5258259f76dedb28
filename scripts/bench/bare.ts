/**
 * A bare hono route on a listener of its own (`bun scripts/bench/bare.ts PORT`): what the framework and
 * the runtime cost for one GET with nothing behind it, the ceiling for Verity's light routes.
 */
import { Hono } from 'hono';

const app = new Hono();
app.get('/', (c) => c.text('ok'));
Bun.serve({ hostname: '127.0.0.1', port: Number(process.argv[2]), fetch: app.fetch });
