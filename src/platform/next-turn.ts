import { setImmediate } from 'node:timers';

/**
 * Runs `fn` once the current turn of the event loop, including the I/O callbacks already due in it,
 * has finished. `setTimeout(fn, 0)` is clamped to about a millisecond under Bun, and a microtask runs
 * before the other requests of the same turn have been handled.
 */
export function nextTurn(fn: () => void): void {
  setImmediate(fn);
}
