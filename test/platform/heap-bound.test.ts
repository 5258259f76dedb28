import { heapSize } from 'bun:jsc';
import { expect, test } from 'bun:test';
import { runtime } from '../../src/platform/runtime.ts';

const MiB = 1024 * 1024;

/**
 * Responses made turn after turn and dropped twenty turns later, as a server's requests in flight
 * are: they outlive the young collections and die old. The heap's largest size.
 */
async function makeGarbage(totalMiB: number): Promise<number> {
  let largest = 0;
  const body = 'x'.repeat(1000);
  const inFlight: Response[][] = [];
  for (let made = 0; made < totalMiB * MiB; made += 256 * 1024) {
    inFlight.push(Array.from({ length: 256 }, (_, i) => new Response(`${body}${made + i}`)));
    if (inFlight.length > 20) inFlight.shift();
    await Bun.sleep(5);
    largest = Math.max(largest, heapSize());
  }
  return largest;
}

test('under Bun, garbage is collected once the heap grows by half of what is live (at least 8 MiB)', async () => {
  // What a server keeps: about 10 MiB of live objects (code, caches, connections).
  const kept = Array.from({ length: 100_000 }, (_, i) => ({ i, name: `kept ${i}`, tags: [i, i + 1] }));
  Bun.gc(true);
  const live = heapSize();
  const stop = runtime.boundHeap();
  try {
    const largest = await makeGarbage(100);
    // Left to itself, JavaScriptCore let this grow by about 60 MiB. Allowed here: the bound, the
    // responses in flight (5 MiB), and what is made between two looks at the heap (100 ms).
    expect(largest - live).toBeLessThan(Math.max(8 * MiB, live / 2) + 28 * MiB);
  } finally {
    stop();
  }
  expect(kept.length).toBe(100_000);
}, 30_000);
