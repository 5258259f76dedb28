import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import { lookup as dnsLookupAll } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';

/**
 * Outgoing HTTP for webhooks. `fetch` resolves names itself, so a check made before it runs could be
 * answered with one address and the connection made to another (DNS rebinding). Here the resolver is
 * ours: every address a name resolves to is checked, and the socket connects to the checked address,
 * while TLS still verifies the certificate against the name (SNI and Host stay the URL's host).
 * Redirects are never followed: node:http does not, and the caller sees the 3xx.
 */
export interface PostOptions {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  /** Returns why an address may not be called, or undefined when it may. */
  checkAddress(address: string): string | undefined;
  /** Response bytes read before the rest is discarded (only the status and headers matter). */
  maxResponseBytes?: number;
  /**
   * Every address a name resolves to, called once per connection; node:dns `lookup` when absent.
   * Taking it as an option lets the rebinding defence be shown with answers no real resolver gives
   * on demand (a public address first, a private one afterwards).
   */
  lookup?: LookupAll;
}

/** node:dns `lookup` with `all: true`. */
export type LookupAll = (
  hostname: string,
  options: LookupAllOptions,
  callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

export interface PostResponse {
  status: number;
  headers: Record<string, string>;
}

export type OutboundErrorKind = 'refused_address' | 'timeout' | 'network';

export class OutboundError extends Error {
  constructor(
    readonly kind: OutboundErrorKind,
    message: string,
  ) {
    super(message);
  }
}

export function postOnce(opts: PostOptions): Promise<PostResponse> {
  const url = new URL(opts.url);
  const client = url.protocol === 'https:' ? https : http;
  const bodyBytes = Buffer.from(opts.body, 'utf8');
  let refusal: string | undefined;
  const lookupAll: LookupAll = opts.lookup ?? dnsLookup;

  const lookup: LookupFunction = (hostname, options, callback) => {
    lookupAll(
      hostname,
      { all: true, family: options.family ?? 0, hints: options.hints },
      (err, addresses) => {
        if (err) return (callback as (e: Error) => void)(err);
        const list = addresses as { address: string; family: number }[];
        // Every address must pass, not only the first: the system may fall back to any of them.
        for (const a of list) {
          const problem = opts.checkAddress(a.address);
          if (problem) {
            refusal = `${hostname} resolves to ${a.address}: ${problem}`;
            return (callback as (e: Error) => void)(new OutboundError('refused_address', refusal));
          }
        }
        if (!list.length) return (callback as (e: Error) => void)(new Error(`${hostname} has no address`));
        if (options.all) (callback as (e: null, a: typeof list) => void)(null, list);
        else (callback as (e: null, a: string, f: number) => void)(null, list[0]!.address, list[0]!.family);
      },
    );
  };

  return new Promise<PostResponse>((resolve, reject) => {
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      fn();
    };
    const host = url.hostname.replace(/^\[|\]$/g, '');
    // An IP literal never reaches `lookup`, so it is checked here.
    const literalProblem = isIpLiteral(host) ? opts.checkAddress(host) : undefined;
    if (literalProblem) {
      reject(new OutboundError('refused_address', `${host}: ${literalProblem}`));
      return;
    }
    const req = client.request(
      {
        protocol: url.protocol,
        hostname: host,
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: { ...opts.headers, 'Content-Length': String(bodyBytes.length) },
        lookup,
        agent: false,
      },
      (res) => {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.headers)) {
          if (v !== undefined) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
        }
        // The status decides the attempt; the body is read (up to a cap) only to end the exchange
        // cleanly, and a body that never ends is cut off by the timer without changing the result.
        settle(() => resolve({ status: res.statusCode ?? 0, headers }));
        let read = 0;
        const max = opts.maxResponseBytes ?? 16_384;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > max) req.destroy();
        });
        res.on('end', () => clearTimeout(timer));
        res.on('error', () => clearTimeout(timer));
      },
    );
    const timer = setTimeout(() => {
      settle(() => reject(new OutboundError('timeout', `no response within ${opts.timeoutMs} ms`)));
      req.destroy();
    }, opts.timeoutMs);
    req.on('error', (e) => {
      clearTimeout(timer);
      settle(() => reject(networkError(e, refusal)));
    });
    req.end(bodyBytes);
  });
}

function networkError(e: unknown, refusal: string | undefined): OutboundError {
  if (e instanceof OutboundError) return e;
  if (refusal) return new OutboundError('refused_address', refusal);
  const err = e as { code?: string; message?: string };
  return new OutboundError('network', err.code ? `${err.code}: ${err.message}` : String(err.message ?? e));
}

function isIpLiteral(host: string): boolean {
  return /^[\d.]+$/.test(host) || host.includes(':');
}

/** Every address a name resolves to (an IP literal resolves to itself). */
export async function resolveHost(hostname: string): Promise<string[]> {
  if (isIpLiteral(hostname)) return [hostname];
  const list = await dnsLookupAll(hostname, { all: true });
  return list.map((a) => a.address);
}
