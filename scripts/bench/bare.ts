/**
 * A bare hono route on a listener of its own (`bun scripts/bench/bare.ts PORT`): what the framework and
 * the runtime cost for one GET with nothing behind it, the ceiling for Verity's light routes. And
 * `/bytes/N`: N bytes of JSON with the headers a public document carries (a request id, CORS,
 * Cache-Control), what answering with a body of that size costs without Verity.
 */
import { Hono } from 'hono';

const bodies = new Map<string, string>();
const app = new Hono();
app.get('/', (c) => c.text('ok'));
app.get('/bytes/:n', (c) => {
  const n = c.req.param('n');
  if (!bodies.has(n)) bodies.set(n, `"${'x'.repeat(Math.max(0, Number(n) - 2))}"`);
  return new Response(bodies.get(n), {
    headers: {
      'Content-Type': 'application/json',
      'Cache-Control': 'public, max-age=300',
      'X-Request-Id': crypto.randomUUID(),
      'Access-Control-Allow-Origin': '*',
    },
  });
});
Bun.serve({ hostname: '127.0.0.1', port: Number(process.argv[2]), fetch: app.fetch });
