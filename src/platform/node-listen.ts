import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
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
 * What Bun refuses, or routes by the Host header, is refused here too: an HTTP/1.0 request without
 * Host (Node serves it on the listen address), and an absolute-form target ("GET http://a/ HTTP/1.1")
 * naming another host than its Host header (Node routes it by the target), so that no runtime routes a
 * request to another surface's host than another would.
 */
function framedAsUnderBun(req: Request, incoming: Incoming | undefined): boolean {
  if (!incoming) return true;
  const host = incoming.headers.host;
  if (host === undefined) return false;
  return incoming.url?.startsWith('/') !== false || hostOf(req.url) === hostOf(`http://${host}`);
}

/**
 * Closes a socket silent for the idle timeout, as Bun's idleTimeout does, but not while the app works
 * on a request it has received whole and not begun to answer: the socket is silent then because the
 * answer is not ready. Once the answer is written, a client that does not read it is closed alike.
 */
function closeWhenSilent(server: Server, seconds: number) {
  const answering = new WeakMap<Socket, Set<[IncomingMessage, ServerResponse]>>();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const pending = answering.get(req.socket) ?? new Set();
    answering.set(req.socket, pending);
    const entry: [IncomingMessage, ServerResponse] = [req, res];
    pending.add(entry);
    res.once('close', () => pending.delete(entry));
  });
  server.setTimeout(seconds * 1000, (socket: Socket) => {
    const working = [...(answering.get(socket) ?? [])].some(([req, res]) => req.complete && !res.headersSent);
    // Node's timer fires once: armed again, it closes a socket whose answer is then not read.
    if (working) socket.setTimeout(seconds * 1000);
    else socket.destroy();
  });
}

/**
 * Node's listener, and Deno's: `Deno.serve` takes no timeouts, so a connection that sends nothing, half
 * a head or half a body would stay open for ever; Deno's `node:http` keeps them as Node does.
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
          framedAsUnderBun(req, env.incoming)
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
    closeWhenSilent(server as Server, opts.idleTimeoutSeconds ?? IDLE_TIMEOUT_SECONDS);
    server.once('error', (e) => reject(listenError(e, opts.hostname, opts.port)));
  });
}
