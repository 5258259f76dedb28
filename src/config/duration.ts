import { z } from '../zod.ts';

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

const DURATION_EXAMPLE = '"90s", "5m", "12h" or "30d"';

/** "90s", "10m", "30d" → milliseconds; undefined when the text is not a duration. */
function parseDuration(text: string): number | undefined {
  const m = /^(\d+)(ms|s|m|h|d)$/.exec(text.trim());
  return m ? Number(m[1]) * UNITS[m[2]!]! : undefined;
}

/** A duration, written as text and read as milliseconds; a bare number is told a duration has a unit. */
const durationMs = z.pipe(
  z
    .string({
      error: (issue) =>
        typeof issue.input === 'number'
          ? `durations are quoted strings with a unit, like "5m": ${issue.input} has no unit`
          : `must be a duration like ${DURATION_EXAMPLE}`,
    })
    .check(
      z.refine((text) => parseDuration(text) !== undefined, {
        error: (issue) => `"${issue.input}" is not a duration like ${DURATION_EXAMPLE}`,
      }),
    ),
  z.transform((text: string) => parseDuration(text)!),
);

/** A config duration that may be left out (a rate limit's override). */
export const optionalDuration = z.optional(durationMs);

/** A config duration with its default, written as it is in the file. */
export const duration = (fallback: string) => z.prefault(durationMs, fallback);
