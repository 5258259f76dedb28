import { jsonLogger, type Level, type Logger, silentLogger } from '../../src/log.ts';

/**
 * Quiet but for errors, which go to the test's output: a 500 or a failed job then names its cause
 * beside the failing assertion. A test that provokes errors on purpose passes its own logger.
 */
export const testLogger: Logger = {
  ...silentLogger,
  error: (msg, fields) => console.error(`verity logged an error: ${msg}`, fields ?? ''),
};

/** A logger whose lines a test reads back, parsed, from `level` up (`now` stamps them: a fixed clock). */
export function keptLog<Line = Record<string, unknown>>(
  level: Level = 'debug',
  now?: () => Date,
): { log: Logger; lines: Line[] } {
  const lines: Line[] = [];
  return { lines, log: jsonLogger(level, (l) => void lines.push(JSON.parse(l)), now) };
}
