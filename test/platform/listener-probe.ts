/**
 * Serves an echo of each request's method, URL and body length through `runtime.listen`, with a one
 * second idle timeout (`/slow` answers after 2.5 s, `/big` with 32 MiB), and prints `{ "port": N }`. The listener test runs it under Bun, bundled for
 * Node, and as `deno run -A listener-probe.ts`.
 */
import { runtime } from '../../src/platform/runtime.ts';

const server = await runtime.listen(
  async (req) => {
    const path = new URL(req.url).pathname;
    // More than a socket's buffers hold, for a client that does not read it.
    if (path === '/big') return new Response(new Uint8Array(32 * 1024 * 1024).fill(97));
    // Works on its answer for longer than the idle timeout.
    if (path === '/slow') await new Promise((r) => setTimeout(r, 2500));
    return new Response(`${req.method} ${req.url} ${(await req.text()).length}`);
  },
  { hostname: '127.0.0.1', port: 0, idleTimeoutSeconds: 1 },
);
console.log(JSON.stringify({ port: server.port }));
