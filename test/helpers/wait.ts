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
