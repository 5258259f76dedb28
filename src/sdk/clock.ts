/** Where the SDK reads the time; inject a fixed one in tests instead of faking globals. */
export interface SdkClock {
  now(): Date;
}

export const systemClock: SdkClock = { now: () => new Date() };
