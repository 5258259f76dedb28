import { importJWK, type JWK } from 'jose';
import { type SdkClock, systemClock } from './clock.ts';
import { UnexpectedResponseError } from './errors.ts';
import { type FetchLike, send } from './http.ts';

export interface JwksCacheOptions {
  jwksUri: string;
  fetch?: FetchLike;
  clock?: SdkClock;
  /** Used when the response carries no `Cache-Control: max-age`. */
  defaultMaxAgeSeconds?: number;
  /**
   * After a refetch caused by an unknown `kid`, further unknown kids do not cause another one for this
   * long, so tokens with made-up kids cannot make the application hammer the JWKS endpoint.
   */
  unknownKidCooldownSeconds?: number;
}

export interface JwksCache {
  /** The RS256 verification key with this kid, fetching the set when the cache is stale or lacks it. */
  getKey(kid: string): Promise<CryptoKey | undefined>;
  /** How many times the key set was fetched (for operators' metrics and tests). */
  readonly fetchCount: number;
}

/** `max-age` of a Cache-Control header; `no-store`/`no-cache` mean 0; absent means undefined. */
export function cacheMaxAge(header: string | null): number | undefined {
  if (!header) return undefined;
  const h = header.toLowerCase();
  if (/\bno-store\b|\bno-cache\b/.test(h)) return 0;
  const m = /\bmax-age\s*=\s*"?(\d+)"?/.exec(h);
  return m ? Number(m[1]) : undefined;
}

/**
 * A JWKS held in memory for as long as the server's Cache-Control allows, refetched once when a token
 * names a kid the cached set does not have (the server publishes new keys ahead of use, so an unknown
 * kid usually means the cache predates a rotation).
 */
export function createJwksCache(opts: JwksCacheOptions): JwksCache {
  const fetchFn = opts.fetch ?? fetch;
  const clock = opts.clock ?? systemClock;
  const defaultMaxAge = opts.defaultMaxAgeSeconds ?? 300;
  const cooldownMs = (opts.unknownKidCooldownSeconds ?? 60) * 1000;
  let keys = new Map<string, JWK>();
  const imported = new Map<string, CryptoKey>();
  let expiresAt = Number.NEGATIVE_INFINITY;
  let lastUnknownKidRefetch = Number.NEGATIVE_INFINITY;
  let fetchCount = 0;
  let inflight: Promise<void> | undefined;

  async function load(): Promise<void> {
    fetchCount++;
    const res = await send(fetchFn, opts.jwksUri, { headers: { accept: 'application/json' } });
    if (!res.ok) throw new UnexpectedResponseError(`JWKS fetch failed with HTTP ${res.status}`, res.status);
    const body = (await res.json().catch(() => undefined)) as { keys?: unknown } | undefined;
    if (!body || !Array.isArray(body.keys))
      throw new UnexpectedResponseError('JWKS response has no keys array');
    const next = new Map<string, JWK>();
    for (const k of body.keys as JWK[]) {
      if (k?.kty !== 'RSA' || typeof k.kid !== 'string') continue;
      if (k.use !== undefined && k.use !== 'sig') continue;
      if (k.alg !== undefined && k.alg !== 'RS256') continue;
      next.set(k.kid, k);
    }
    keys = next;
    imported.clear();
    expiresAt =
      clock.now().getTime() + (cacheMaxAge(res.headers.get('cache-control')) ?? defaultMaxAge) * 1000;
  }

  // Concurrent validations share one fetch.
  function refresh(): Promise<void> {
    inflight ??= load().finally(() => {
      inflight = undefined;
    });
    return inflight;
  }

  async function keyFor(kid: string): Promise<CryptoKey | undefined> {
    const jwk = keys.get(kid);
    if (!jwk) return undefined;
    let key = imported.get(kid);
    if (!key) {
      key = (await importJWK({ ...jwk, alg: 'RS256' }, 'RS256')) as CryptoKey;
      imported.set(kid, key);
    }
    return key;
  }

  return {
    get fetchCount() {
      return fetchCount;
    },
    async getKey(kid) {
      let refreshed = false;
      if (clock.now().getTime() >= expiresAt) {
        await refresh();
        refreshed = true;
      }
      const key = await keyFor(kid);
      if (key || refreshed) return key;
      const now = clock.now().getTime();
      if (now - lastUnknownKidRefetch < cooldownMs) return undefined;
      lastUnknownKidRefetch = now;
      await refresh();
      return keyFor(kid);
    },
  };
}
