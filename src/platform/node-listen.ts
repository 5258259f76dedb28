import {
  type FetchHandler,
  IDLE_TIMEOUT_SECONDS,
  type Listening,
  type ListenOptions,
  listenError,
} from './listen.ts';

interface Incoming {
  url?: string;
  headers: { host?: string };
  socket?: { remoteAddress?: string };
}

/** The URL parser's spelling of a host ("B:80" is "b"), or undefined for one it refuses. */
function hostOf(url: string): string | undefined {
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
}

/**
 * An absolute-form target ("GET http://a/ HTTP/1.1") is served by its own authority here, by the Host
 * header under Bun; one naming another host than its Host header is refused, so that no runtime routes
 * a request to another surface's host than another runtime would.
 */
const routedAsUnderBun = (req: Request, incoming: Incoming | undefined) =>
  incoming?.url?.startsWith('/') !== false || hostOf(req.url) === hostOf(`http://${incoming.headers.host}`);

/**
 * Node's listener, and Deno's: `Deno.serve` takes no timeouts, so a connection that sends nothing, half
 * a head or half a body would stay open for ever; Deno's `node:http` applies them as Node does.
 * No listener-level body limit here: the app's limits alone hold.
 */
export async function listenNodeHttp(handler: FetchHandler, opts: ListenOptions): Promise<Listening> {
  const { serve } = await import('@hono/node-server');
  return new Promise((resolve, reject) => {
    const server = serve(
      {
        hostname: opts.hostname,
        port: opts.port,
        fetch: (req: Request, env: { incoming?: Incoming }) =>
          routedAsUnderBun(req, env.incoming)
            ? handler(req, { ip: env.incoming?.socket?.remoteAddress ?? 'unknown' })
            : new Response('Bad Request', { status: 400 }),
      },
      (info) =>
        resolve({
          port: info.port,
          hostname: opts.hostname,
          close: () =>
            new Promise<void>((res) => {
              (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
              server.close(() => res());
            }),
        }),
    );
    // Inactivity on a socket, as Bun's idleTimeout: before the head, within it, or within the body.
    server.setTimeout((opts.idleTimeoutSeconds ?? IDLE_TIMEOUT_SECONDS) * 1000);
    server.once('error', (e) => reject(listenError(e, opts.hostname, opts.port)));
  });
}
