import { createServer } from 'node:net';
import { isBun } from './runtime.ts';

/** The address could not be bound; `code` is the system's (EADDRINUSE, EACCES, EADDRNOTAVAIL…). */
export class ListenError extends Error {
  constructor(
    readonly code: string,
    readonly hostname: string,
    readonly port: number,
  ) {
    super(`cannot listen on ${hostname}:${port} (${code})`);
  }
}

const listenError = (e: unknown, hostname: string, port: number) =>
  new ListenError(String((e as { code?: string }).code ?? 'UNKNOWN'), hostname, port);

/**
 * Binds the address and lets it go again, so a start that could not listen fails before it has
 * created anything on disk (node:net behaves the same under Bun, Node and Deno).
 */
export function assertBindable(hostname: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (e) => reject(listenError(e, hostname, port)));
    probe.listen({ host: hostname, port, exclusive: true }, () => probe.close(() => resolve()));
  });
}

/** What the listener hands every request besides the Request itself. */
export interface ConnInfo {
  /** Socket peer address; proxies are handled above this, per `trust_proxy`. */
  ip: string;
}

export type FetchHandler = (req: Request, conn: ConnInfo) => Response | Promise<Response>;

/** Exact paths answered by method ahead of the fetch handler, which must answer them too. */
export type Routes = Record<string, { POST: FetchHandler }>;

export interface Listening {
  port: number;
  hostname: string;
  close(): Promise<void>;
}

export async function listen(
  handler: FetchHandler,
  opts: { hostname: string; port: number; routes?: Routes; maxBodySize?: number },
): Promise<Listening> {
  if (isBun) {
    // Bun matches these natively; any other method on the path falls through to the fetch handler.
    const routes = Object.fromEntries(
      Object.entries(opts.routes ?? {}).map(([path, { POST }]) => [
        path,
        {
          POST: (req: Request, srv: Bun.Server<undefined>) =>
            POST(req, { ip: srv.requestIP(req)?.address ?? 'unknown' }),
        },
      ]),
    );
    let server: Bun.Server<undefined>;
    try {
      server = Bun.serve({
        routes,
        hostname: opts.hostname,
        port: opts.port,
        idleTimeout: 30,
        // The app's own limits decide, with their error shapes; this is a backstop above the largest
        // (Bun's default is 128 MiB). Node has none: there the app's limits alone hold.
        maxRequestBodySize: (opts.maxBodySize ?? 1024 * 1024) + 1024 * 1024,
        fetch: (req, srv) => handler(req, { ip: srv.requestIP(req)?.address ?? 'unknown' }),
      });
    } catch (e) {
      throw listenError(e, opts.hostname, opts.port);
    }
    return {
      port: server.port ?? opts.port,
      hostname: opts.hostname,
      close: async () => {
        await server.stop(true);
      },
    };
  }
  const { serve } = await import('@hono/node-server');
  return new Promise((resolve, reject) => {
    const server = serve(
      {
        hostname: opts.hostname,
        port: opts.port,
        fetch: (req: Request, env: { incoming?: { socket?: { remoteAddress?: string } } }) =>
          handler(req, { ip: env.incoming?.socket?.remoteAddress ?? 'unknown' }),
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
    server.once('error', (e) => reject(listenError(e, opts.hostname, opts.port)));
  });
}

/** Parses "host:port", including "[::1]:8080". */
export function parseListen(listen: string): { hostname: string; port: number } {
  const m = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(listen);
  if (!m) throw new Error(`invalid listen address: ${listen}`);
  return { hostname: m[1]!.replace(/^\[|\]$/g, ''), port: Number(m[2]) };
}
