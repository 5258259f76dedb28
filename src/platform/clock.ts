/** Every domain function takes a Clock so expiry and schedules are tested without sleeping. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export interface FixedClock extends Clock {
  set(at: Date | number): void;
  advance(ms: number): void;
}

export function fixedClock(start: Date | number = Date.UTC(2026, 0, 1)): FixedClock {
  let t = typeof start === 'number' ? start : start.getTime();
  return {
    now: () => new Date(t),
    set(at) {
      t = typeof at === 'number' ? at : at.getTime();
    },
    advance(ms) {
      t += ms;
    },
  };
}

/** Unix seconds, the unit every stored time uses. */
export const unixOf = (at: Date): number => Math.floor(at.getTime() / 1000);

export const unix = (clock: Clock): number => unixOf(clock.now());

/**
 * The one format every API response, webhook payload and CLI `--json` line gives a time in: ISO 8601 UTC
 * with milliseconds. A number is unix seconds, as stored.
 */
export function isoTime(at: number | Date): string;
export function isoTime(at: number | Date | null): string | null;
export function isoTime(at: number | Date | null): string | null {
  if (at === null) return null;
  return (typeof at === 'number' ? new Date(at * 1000) : at).toISOString();
}
