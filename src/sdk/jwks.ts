import { createRemoteJWKSet, customFetch, errors, type RemoteJWKSetOptions } from 'jose';
import { UnexpectedResponseError } from './errors.ts';
import type { FetchLike } from './http.ts';

/**
 * jose's remote key set options, in milliseconds: `cacheMaxAge` (default 10 minutes) is how long a
 * fetched set is used at most (less when its response's `Cache-Control` says so); `cooldownDuration`
 * (default 30 s) is how long after a fetch an unknown `kid` does not cause another one, so tokens with
 * made-up kids cannot make the application hammer the JWKS endpoint; `timeoutDuration` (default 5 s)
 * bounds each fetch.
 */
export interface JwksCacheOptions
  extends Pick<RemoteJWKSetOptions, 'cacheMaxAge' | 'cooldownDuration' | 'timeoutDuration'> {
  jwksUri: string;
  fetch?: FetchLike;
}

export interface JwksCache {
  /**
   * The verification key with this kid for `alg` (RS256 unless given), fetching the set when it is
   * stale or lacks the kid.
   */
  getKey(kid: string, alg?: string): Promise<CryptoKey | undefined>;
  /** How many times the key set was fetched (for operators' metrics and tests). */
  readonly fetchCount: number;
}

/**
 * The issuer's JWKS through jose's `createRemoteJWKSet`: concurrent validations share one fetch, and
 * an unknown `kid` refetches the set once the cooldown has passed (Verity publishes new keys ahead of
 * use, so an unknown kid usually means the cache predates a rotation). The cache runs on real time;
 * the injected clock only decides `exp`, `iat` and `auth_time`.
 */
export function createJwksCache(opts: JwksCacheOptions): JwksCache {
  const { jwksUri, fetch: fetchFn = fetch, ...durations } = opts;
  let fetchCount = 0;
  // When the set fetched last goes stale by its own response's Cache-Control (the interface: clients
  // cache according to the response headers), so a key the issuer withdrew is not trusted for longer.
  let staleAt = Number.POSITIVE_INFINITY;
  // The refetch past max-age while it runs, and after it failed: until one succeeds, the old set is
  // not used (concurrent validations wait for the same one).
  let refetch: Promise<void> | undefined;
  const keySet = createRemoteJWKSet(new URL(jwksUri), {
    ...durations,
    [customFetch]: async (url, init) => {
      fetchCount++;
      const res = await fetchFn(url, init);
      // Only a key set's own answer says how long it keeps: a failed one changes nothing.
      if (!res.ok) return res;
      const cacheControl = res.headers.get('cache-control') ?? '';
      const maxAge = /(?:^|,)\s*max-age=(\d+)/i.exec(cacheControl)?.[1];
      // The bare directives only: `no-cache="Set-Cookie"` names a header, not the whole response.
      staleAt = /(?:^|,)\s*(?:no-store|no-cache)\s*(?:,|$)/i.test(cacheControl)
        ? Date.now()
        : maxAge === undefined
          ? Number.POSITIVE_INFINITY
          : Date.now() + Number(maxAge) * 1000;
      return res;
    },
  });
  return {
    get fetchCount() {
      return fetchCount;
    },
    async getKey(kid, alg = 'RS256') {
      try {
        if (Date.now() >= staleAt) {
          // Tried again after the cooldown, not at every validation.
          staleAt = Date.now() + (durations.cooldownDuration ?? 30_000);
          const attempt = keySet.reload();
          refetch = attempt;
          attempt.then(
            () => {
              if (refetch === attempt) refetch = undefined;
            },
            () => {},
          );
        }
        await refetch;
        return await keySet({ alg, kid });
      } catch (e) {
        if (e instanceof errors.JWKSNoMatchingKey) return undefined;
        throw new UnexpectedResponseError(
          `the JWKS at ${jwksUri} could not be used: ${(e as Error).message}`,
        );
      }
    },
  };
}
