import type { Context, MiddlewareHandler } from 'hono';
import type { RateLimitConfig } from '../config/schema.ts';
import { type AppContext, slot } from '../context.ts';
import type { Environment } from '../environment.ts';
import { ApiError } from '../errors.ts';
import { unix } from '../platform/clock.ts';
import { addressKey } from './address-key.ts';
import type { AppEnv } from './env.ts';
import { apiErrorResponse } from './errors.ts';
import { countHitsOfMany, deleteEndedBuckets } from './rate-limit.store.ts';

/** Buckets counted in SQLite; `web` (the pages) is counted in memory, see countPage. */
export type RateLimitBucket = 'oauth' | 'userinfo' | 'capabilities' | 'developer';

export interface RateLimitScope {
  environment?: Environment;
  plan?: string;
}

export interface RateLimitOptions {
  /** Which environment and plan the request belongs to, for the per-environment/per-plan limits. */
  scopeOf?: (c: Context<AppEnv>) => RateLimitScope | undefined | Promise<RateLimitScope | undefined>;
  /** Renders the 429 in the surface's own error shape (the token endpoint's differs). */
  respond?: (err: ApiError, c: Context<AppEnv>) => Response | Promise<Response>;
}

export interface Limit {
  requests: number;
  /** Seconds. */
  window: number;
}

/** The limit for a request: the bucket's default, then the environment's override, then the plan's. */
export function resolveLimit(config: RateLimitConfig, scope: RateLimitScope | undefined): Limit {
  let requests = config.requests;
  let windowMs = config.window;
  const overrides = [
    scope?.environment ? config.environments[scope.environment] : undefined,
    scope?.plan ? config.plans[scope.plan] : undefined,
  ];
  for (const o of overrides) {
    if (!o) continue;
    if (o.requests !== undefined) requests = o.requests;
    if (o.window !== undefined) windowMs = o.window;
  }
  return { requests, window: Math.max(1, Math.ceil(windowMs / 1000)) };
}

export interface Hit {
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  reset: number;
  allowed: boolean;
}

/** A bucket once a turn's requests are counted: its count, and seconds until its window resets. */
interface Counted {
  count: number;
  reset: number;
}

/** This turn's requests not counted yet, by window and bucket key, counted by one unit of the batch. */
interface Turn {
  requests: Map<number, Map<string, number>>;
  counted: Promise<Map<number, Map<string, Counted>>>;
}

const OPEN_TURN = slot((): { turn?: Turn } => ({}));

/**
 * Counts one request of `bucket` against `key`, in the group commit of the turn. The requests of one
 * turn for the same key and window are counted together, each as if it had come alone and in
 * arrival order: the i-th of n sees the count the bucket reached at its own increment. (Fifty
 * concurrent token requests from one relying party's backend are one bucket row, written once.) The
 * buckets of a turn are written by a few statements (rate-limit.store.ts), not one each.
 */
export function countRequest(
  ctx: AppContext,
  bucket: RateLimitBucket,
  key: string,
  scope: RateLimitScope | undefined,
): Promise<Hit> {
  const limit = resolveLimit(ctx.config.rate_limits[bucket], scope);
  const id = `${bucket}:${key}`;
  const turn = openTurn(ctx);
  let requests = turn.requests.get(limit.window);
  if (!requests) {
    requests = new Map();
    turn.requests.set(limit.window, requests);
  }
  const i = requests.get(id) ?? 0;
  requests.set(id, i + 1);
  // By the time it is counted the turn is closed: the bucket's requests are final.
  return turn.counted.then((counted) => {
    const { count, reset } = counted.get(limit.window)!.get(id)!;
    const mine = count - requests.get(id)! + 1 + i;
    return {
      limit: limit.requests,
      remaining: Math.max(0, limit.requests - mine),
      reset,
      allowed: mine <= limit.requests,
    };
  });
}

function openTurn(ctx: AppContext): Turn {
  const open = ctx.caches.get(OPEN_TURN);
  if (open.turn) return open.turn;
  const requests: Turn['requests'] = new Map();
  const close = () => {
    if (open.turn === turn) open.turn = undefined;
  };
  const turn: Turn = {
    requests,
    // The turn closes when its unit runs; a unit may run twice (write-batch.ts), with the same counts.
    counted: ctx.db.batch(() => {
      close();
      const now = unix(ctx.clock);
      const counted = new Map<number, Map<string, Counted>>();
      for (const [window, counts] of requests) {
        const buckets = new Map<string, Counted>();
        for (const [key, row] of countHitsOfMany(ctx.db, counts, now, window))
          buckets.set(key, { count: row.count, reset: Math.max(1, row.window_start + window - now) });
        counted.set(window, buckets);
      }
      return counted;
    }),
  };
  open.turn = turn;
  // A batch that failed before the unit ran (the database locked past the wait) closes it too, or
  // every later request would join it and share its error.
  turn.counted.then(close, close);
  return turn;
}

/** Keys a request by its client address (IPv6 per /64). */
export const byAddress = (c: Context<AppEnv>) => addressKey(c.get('clientIp'));

export function rateLimitHeaders(h: Hit): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(h.limit),
    'X-RateLimit-Remaining': String(h.remaining),
    'X-RateLimit-Reset': String(h.reset),
  };
}

/** The 429 for a request over its limit, with the rate-limit headers and Retry-After. */
export function rateLimitExceeded(h: Hit): ApiError {
  return new ApiError('RATE_LIMIT_EXCEEDED', 'Too many requests; retry later.', 429, undefined, {
    ...rateLimitHeaders(h),
    'Retry-After': String(h.reset),
  });
}

/**
 * Fixed-window rate limiting stored in SQLite (DESIGN.md §5), so limits hold across restarts and
 * are shared by every process on the database. Every response of the bucket carries the
 * `X-RateLimit-*` headers; over the limit the request is answered 429 `RATE_LIMIT_EXCEEDED` with
 * `Retry-After` and never reaches the handler.
 */
export function rateLimit(
  ctx: AppContext,
  bucket: RateLimitBucket,
  keyOf: (c: Context<AppEnv>) => string | Promise<string>,
  opts: RateLimitOptions = {},
): MiddlewareHandler<AppEnv> {
  return async function rateLimit(c, next) {
    const result = await countRequest(ctx, bucket, await keyOf(c), await opts.scopeOf?.(c));
    const headers = rateLimitHeaders(result);
    if (!result.allowed) return (opts.respond ?? apiErrorResponse)(rateLimitExceeded(result), c);
    for (const [k, v] of Object.entries(headers)) c.header(k, v);
    await next();
    // Handlers that build their own Response bypass c.header; make sure the headers are there too.
    for (const [k, v] of Object.entries(headers)) {
      if (!c.res.headers.has(k)) {
        try {
          c.res.headers.set(k, v);
        } catch {
          const res = new Response(c.res.body, c.res);
          res.headers.set(k, v);
          c.res = res;
        }
      }
    }
  };
}

interface PageWindow {
  start: number;
  count: number;
}

const PAGE_WINDOWS = slot(() => ({ windows: new Map<string, PageWindow>(), sweptAt: 0 }));

/**
 * Counts a page view against `key` in this process's memory, not in SQLite: a page view must write
 * nothing to the database, and a restart forgetting the counts costs little for pages (sign-in
 * failures are throttled in the database). Ended windows are swept once per window.
 */
const MAX_PAGE_WINDOWS = 100_000;

export function countPage(ctx: AppContext, key: string): Hit {
  const config = ctx.config.rate_limits.web;
  const window = Math.max(1, Math.ceil(config.window / 1000));
  const now = unix(ctx.clock);
  const state = ctx.caches.get(PAGE_WINDOWS);
  if (now - state.sweptAt >= window) {
    for (const [k, w] of state.windows) if (w.start + window <= now) state.windows.delete(k);
    state.sweptAt = now;
  }
  let w = state.windows.get(key);
  if (!w || w.start + window <= now) {
    // Bounded memory under a flood from many addresses: the oldest window makes room.
    if (!w && state.windows.size >= MAX_PAGE_WINDOWS)
      state.windows.delete(state.windows.keys().next().value!);
    w = { start: now, count: 0 };
    state.windows.set(key, w);
  }
  w.count++;
  return {
    limit: config.requests,
    remaining: Math.max(0, config.requests - w.count),
    reset: Math.max(1, w.start + window - now),
    allowed: w.count <= config.requests,
  };
}

/**
 * The hosted pages' and the portal's limit per client address (`[rate_limits.web]`). Over it, the
 * 429 is thrown with its headers already on the context, so the surface renders it as its own page.
 */
export function pageRateLimit(ctx: AppContext): MiddlewareHandler<AppEnv> {
  return async function pageRateLimit(c, next) {
    const hit = countPage(ctx, byAddress(c));
    for (const [k, v] of Object.entries(rateLimitHeaders(hit))) c.header(k, v);
    if (!hit.allowed) {
      const err = rateLimitExceeded(hit);
      c.header('Retry-After', err.headers['Retry-After']);
      throw err;
    }
    await next();
  };
}

/** Deletes buckets whose window ended (windows never exceed the longest configured one). */
export function deleteExpiredBuckets(ctx: AppContext, now: number): number {
  let removed = 0;
  for (const bucket of ['oauth', 'userinfo', 'capabilities', 'developer'] as const) {
    const config = ctx.config.rate_limits[bucket];
    const windows = [config.window];
    for (const o of [...Object.values(config.environments), ...Object.values(config.plans)]) {
      if (o?.window !== undefined) windows.push(o.window);
    }
    const longest = Math.ceil(Math.max(...windows) / 1000);
    removed += deleteEndedBuckets(ctx.db, bucket, longest, now);
  }
  // The portal's sign-up limit (portal/account.ts) counts in the same table.
  const signup = Math.floor(ctx.config.developer.signup_window / 1000);
  return removed + deleteEndedBuckets(ctx.db, 'signup', signup, now);
}
