/** The load generator: `connections` requests in flight, latencies kept for percentiles. */

export interface Result {
  name: string;
  requests: number;
  perSecond: number;
  p50: number;
  p99: number;
  errors: number;
  /** Sorted, in ms. */
  latencies: number[];
  seconds: number;
}

export function median(xs: number[]): number {
  return percentile(
    [...xs].sort((a, b) => a - b),
    50,
  );
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/**
 * A request as the generator sends it. Encoded once into HTTP/1.1 bytes and written to a kept-alive
 * socket: `fetch` costs the generator about 60 µs a request, which on a 2-core machine is taken from
 * the free server's cores and caps a light route near 58,000/s, below what the bare route serves.
 */
export interface HttpRequest {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
}

const encoder = new TextEncoder();
// A request sent again and again (the light routes) is encoded once: parsing its URL and encoding it
// cost the generator as much as the bare route costs the server.
const encodedRequests = new WeakMap<HttpRequest, Uint8Array>();
const EMPTY = Buffer.alloc(0);

function bytesOf(r: HttpRequest): Uint8Array {
  let bytes = encodedRequests.get(r);
  if (!bytes) {
    bytes = encode(r);
    encodedRequests.set(r, bytes);
  }
  return bytes;
}

/** The same request forever: encoded once. */
export function repeat(request: HttpRequest): () => HttpRequest {
  return () => request;
}

function encode(r: HttpRequest): Uint8Array {
  const url = new URL(r.url);
  const body = r.body ?? '';
  let head = `${r.method ?? 'GET'} ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\n`;
  for (const [name, value] of Object.entries(r.headers ?? {})) head += `${name}: ${value}\r\n`;
  if (r.method === 'POST') head += `Content-Length: ${Buffer.byteLength(body)}\r\n`;
  return encoder.encode(`${head}\r\n${body}`);
}

/** Where a complete response ends in `buf`, with its status and body; undefined while incomplete. */
function parseResponse(buf: Buffer): { end: number; status: number; body: Buffer } | undefined {
  const headEnd = buf.indexOf('\r\n\r\n');
  if (headEnd < 0) return undefined;
  const head = buf.subarray(0, headEnd).toString('latin1');
  const status = Number(head.slice(9, 12));
  const length = /\r\ncontent-length: *(\d+)/i.exec(head);
  if (length) {
    const end = headEnd + 4 + Number(length[1]);
    return buf.length < end ? undefined : { end, status, body: buf.subarray(headEnd + 4, end) };
  }
  if (!/\r\ntransfer-encoding: *chunked/i.test(head)) throw new Error(`a response without a length: ${head}`);
  const chunks: Buffer[] = [];
  for (let at = headEnd + 4; ; ) {
    const line = buf.indexOf('\r\n', at);
    if (line < 0) return undefined;
    const size = Number.parseInt(buf.subarray(at, line).toString('latin1'), 16);
    if (buf.length < line + 2 + size + 2) return undefined;
    if (size === 0) return { end: line + 4, status, body: Buffer.concat(chunks) };
    chunks.push(buf.subarray(line + 2, line + 2 + size));
    at = line + 2 + size + 2;
  }
}

/**
 * Runs `next()` requests with `connections` in flight, each connection one kept-alive socket, until it
 * returns undefined or time is up. A connection keeps to the host of its first request: requests meant
 * for several servers in turn spread over them connection by connection, as a layer-4 balancer does.
 */
export async function load(
  name: string,
  connections: number,
  next: () => HttpRequest | undefined,
  opts: { seconds?: number; ok?: (status: number) => boolean } = {},
): Promise<Result> {
  const latencies: number[] = [];
  let errors = 0;
  const deadline = opts.seconds ? performance.now() + opts.seconds * 1000 : Number.POSITIVE_INFINITY;
  const ok = opts.ok ?? ((s: number) => s === 200);
  const start = performance.now();
  const connection = () =>
    new Promise<void>((resolve, reject) => {
      let buf: Buffer = EMPTY;
      let sentAt = 0;
      const send = (socket: Bun.Socket) => {
        const req = performance.now() > deadline ? undefined : next();
        if (!req) {
          socket.end();
          return resolve();
        }
        sentAt = performance.now();
        socket.write(bytesOf(req));
      };
      const first = next();
      if (!first) return resolve();
      const target = new URL(first.url);
      Bun.connect({
        hostname: target.hostname,
        port: Number(target.port),
        socket: {
          open(socket) {
            sentAt = performance.now();
            socket.write(bytesOf(first));
          },
          data(socket, chunk) {
            // The chunk is read in place; only what outlives this call is copied.
            const data = buf.length ? Buffer.concat([buf, chunk]) : chunk;
            const res = parseResponse(data);
            if (!res) {
              buf = data === chunk ? Buffer.from(chunk) : data;
              return;
            }
            latencies.push(performance.now() - sentAt);
            // The first failure of a run is shown: a count alone says nothing of the cause.
            if (!ok(res.status) && errors++ === 0)
              console.error(`${name}: ${res.status} ${res.body.toString().slice(0, 300)}`);
            buf = res.end === data.length ? EMPTY : Buffer.from(data.subarray(res.end));
            send(socket);
          },
          close: () => resolve(),
          error: (_, e) => reject(e),
        },
      }).catch(reject);
    });
  await Promise.all(Array.from({ length: connections }, connection));
  return result(name, latencies, (performance.now() - start) / 1000, errors);
}

/** One result from several runs of the same requests. */
export function merge(name: string, runs: Result[]): Result {
  return result(
    name,
    runs.flatMap((r) => r.latencies),
    runs.reduce((t, r) => t + r.seconds, 0),
    runs.reduce((t, r) => t + r.errors, 0),
  );
}

function result(name: string, latencies: number[], seconds: number, errors: number): Result {
  latencies.sort((a, b) => a - b);
  return {
    name,
    requests: latencies.length,
    perSecond: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    errors,
    latencies,
    seconds,
  };
}

/** Requests that cycle through `bearers` forever (UserInfo with the tokens of a few exchanges). */
export function bearerRequests(url: string, bearers: string[]): () => HttpRequest {
  const requests = bearers.map((b) => ({ url, headers: { Authorization: `Bearer ${b}` } }));
  let i = 0;
  return () => requests[i++ % requests.length]!;
}

/** Codes exchanged one by one for their access tokens. */
export async function accessTokens(next: () => HttpRequest | undefined): Promise<string[]> {
  const tokens: string[] = [];
  for (let req = next(); req; req = next()) {
    const res = await fetch(req.url, req);
    const body = (await res.json()) as { access_token?: string };
    if (!body.access_token) throw new Error(`exchange for an access token failed: ${JSON.stringify(body)}`);
    tokens.push(body.access_token);
  }
  return tokens;
}

export interface MintedCode {
  code: string;
  verifier: string;
}

/** `POST {tokenUrl}` requests exchanging `codes` one after another, with client_secret_basic and PKCE. */
export function codeExchanges(
  tokenUrl: string,
  client: { id: string; secret: string; redirectUri: string },
  codes: MintedCode[],
): () => HttpRequest | undefined {
  const auth = `Basic ${btoa(`${encodeURIComponent(client.id)}:${encodeURIComponent(client.secret)}`)}`;
  // Encoded before the run, not while it runs: on the every-core run the generator's time is taken
  // from the free server's cores.
  const requests = codes.map((c) => {
    const r: HttpRequest = {
      url: tokenUrl,
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: auth },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: c.code,
        redirect_uri: client.redirectUri,
        code_verifier: c.verifier,
      }).toString(),
    };
    bytesOf(r);
    return r;
  });
  let i = 0;
  return () => requests[i++];
}
