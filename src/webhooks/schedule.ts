/**
 * The retry schedule of the interface: the first attempt at once, then 1 min, 5 min, 30 min, 2 h, 12 h
 * and 24 h after the previous attempt; a delivery whose seventh attempt fails is marked failed.
 */
export const RETRY_DELAYS_SECONDS = [60, 300, 1800, 7200, 43_200, 86_400] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;

/** A receiver's Retry-After is honoured up to the longest step of the schedule, never beyond. */
const MAX_RETRY_AFTER_SECONDS = 86_400;

/**
 * Seconds until the next attempt after `attemptsMade` failed attempts, or undefined when none remain.
 * `retryAfterSeconds` (from a 429 or 503) wins only when it is later than the schedule.
 */
export function nextDelay(attemptsMade: number, retryAfterSeconds?: number): number | undefined {
  const scheduled = RETRY_DELAYS_SECONDS[attemptsMade - 1];
  if (scheduled === undefined) return undefined;
  if (retryAfterSeconds === undefined) return scheduled;
  return Math.max(scheduled, Math.min(retryAfterSeconds, MAX_RETRY_AFTER_SECONDS));
}

/** Retry-After as delay-seconds or an HTTP date (RFC 9110 §10.2.3); undefined when absent or invalid. */
export function parseRetryAfter(value: string | undefined, now: Date): number | undefined {
  if (!value) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v);
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - now.getTime()) / 1000));
}
