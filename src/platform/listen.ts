import { createServer } from 'node:net';

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

export const listenError = (e: unknown, hostname: string, port: number) =>
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

/** A handler served ahead of the framework; `conn` is absent when a test calls the app directly. */
export type PlainHandler = (req: Request, conn: ConnInfo | undefined) => Response | Promise<Response>;

/** Exact paths answered by method ahead of the fetch handler, which must answer them too. */
export type Routes = Record<string, { GET?: PlainHandler; POST?: PlainHandler }>;

/** What `Runtime.listen` is told besides the handler. */
export interface ListenOptions {
  hostname: string;
  port: number;
  /** Matched ahead of the handler where the listener can (Bun). */
  routes?: Routes;
  /** A connection that sends nothing for this long is closed; IDLE_TIMEOUT_SECONDS by default. */
  idleTimeoutSeconds?: number;
}

/** How long a connection may stay silent, waiting for a request, its head or its body. */
export const IDLE_TIMEOUT_SECONDS = 30;

export interface Listening {
  port: number;
  hostname: string;
  close(): Promise<void>;
}

/** Parses "host:port", including "[::1]:8080". */
export function parseListen(listen: string): { hostname: string; port: number } {
  const m = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(listen);
  if (!m) throw new Error(`invalid listen address: ${listen}`);
  return { hostname: m[1]!.replace(/^\[|\]$/g, ''), port: Number(m[2]) };
}
