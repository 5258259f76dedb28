/** Polls `cond` until it holds, or throws after `ms` naming `what`; for effects of background work. */
export async function waitFor(
  what: string,
  cond: () => boolean | Promise<boolean>,
  ms = 5000,
  every = 20,
): Promise<void> {
  const deadline = performance.now() + ms;
  while (!(await cond())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(every);
  }
}

/**
 * The next turn of the event loop. Reads share one snapshot per turn (src/db/turn-snapshot.ts), and a
 * request from outside always arrives in a later turn than a change another process made before it;
 * a test that reads directly after such a change waits for this to stand for that.
 */
export const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
