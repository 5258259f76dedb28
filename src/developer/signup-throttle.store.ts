import type { Db } from '../db/open.ts';
import { addressKey } from '../http/address-key.ts';

/**
 * Open sign-ups and password-reset requests per client address (`[developer] signups_per_ip` per
 * `signup_window`), counted in the fixed-window buckets the rate limiter uses. Every attempt counts,
 * refused ones included, so a refused client cannot keep probing.
 * Returns whether this attempt is within the limit.
 */
export function takeSignupAttempt(
  db: Db,
  ip: string,
  now: number,
  limit: { requests: number; windowSeconds: number },
): boolean {
  const row = db.sql
    .prepare<{ count: number }>(
      `INSERT INTO rate_limit_buckets (key, window_start, count) VALUES (?, ?, 1)
       ON CONFLICT(key) DO UPDATE SET
         count = CASE WHEN ? - window_start >= ? THEN 1 ELSE count + 1 END,
         window_start = CASE WHEN ? - window_start >= ? THEN ? ELSE window_start END
       RETURNING count`,
    )
    .get(`signup:${addressKey(ip)}`, now, now, limit.windowSeconds, now, limit.windowSeconds, now);
  return (row?.count ?? 1) <= limit.requests;
}
