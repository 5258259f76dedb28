import type { AppContext } from '../context.ts';
import { clockSkewSeconds } from '../db/clock-skew.ts';

/** A difference beyond this is warned about: well inside a webhook lease's margin and a job's slot. */
const CLOCK_SKEW_WARN_SECONDS = 5;

/**
 * Compares this instance's clock with the database server's (several instances decide leases, job
 * slots and expiry each by its own clock, so they must agree), exports the difference as a gauge and
 * warns when it is too large. Returns the difference in seconds; undefined on SQLite.
 */
export function checkClock(ctx: AppContext): number | undefined {
  const skew = clockSkewSeconds(ctx.db, ctx.clock);
  if (skew === undefined) return undefined;
  const rounded = Math.round(skew * 10) / 10;
  ctx.metrics
    .gauge('verity_clock_skew_seconds', "How far this instance's clock is ahead of the database server's")
    .set(() => rounded);
  if (Math.abs(skew) > CLOCK_SKEW_WARN_SECONDS)
    ctx.log.warn("this instance's clock differs from the database server's: keep every clock in step (NTP)", {
      aheadSeconds: rounded,
    });
  return skew;
}
