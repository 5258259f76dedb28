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

/** Runs `next()` requests with `connections` in flight until it returns undefined or time is up. */
export async function load(
  name: string,
  connections: number,
  next: () => Request | undefined,
  opts: { seconds?: number; ok?: (status: number) => boolean } = {},
): Promise<Result> {
  const latencies: number[] = [];
  let errors = 0;
  const deadline = opts.seconds ? performance.now() + opts.seconds * 1000 : Number.POSITIVE_INFINITY;
  const ok = opts.ok ?? ((s: number) => s === 200);
  const start = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      for (;;) {
        if (performance.now() > deadline) return;
        const req = next();
        if (!req) return;
        const t = performance.now();
        const res = await fetch(req);
        const body = await res.text();
        latencies.push(performance.now() - t);
        // The first failure of a run is shown: a count alone says nothing of the cause.
        if (!ok(res.status) && errors++ === 0) console.error(`${name}: ${res.status} ${body.slice(0, 300)}`);
      }
    }),
  );
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
export function bearerRequests(url: string, bearers: string[]): () => Request {
  let i = 0;
  return () => new Request(url, { headers: { Authorization: `Bearer ${bearers[i++ % bearers.length]}` } });
}

/** Codes exchanged one by one for their access tokens. */
export async function accessTokens(next: () => Request | undefined): Promise<string[]> {
  const tokens: string[] = [];
  for (let req = next(); req; req = next()) {
    const res = await fetch(req);
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
): () => Request | undefined {
  const auth = `Basic ${btoa(`${encodeURIComponent(client.id)}:${encodeURIComponent(client.secret)}`)}`;
  let i = 0;
  return () => {
    const c = codes[i++];
    if (!c) return undefined;
    return new Request(tokenUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: auth },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: c.code,
        redirect_uri: client.redirectUri,
        code_verifier: c.verifier,
      }).toString(),
    });
  };
}
