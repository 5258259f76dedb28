import { afterEach, expect, test } from 'bun:test';
import { checkClock } from '../../src/audit/clock-check.ts';
import { auditJobs } from '../../src/audit/jobs.ts';
import { startJobs } from '../../src/jobs.ts';
import { jsonLogger } from '../../src/log.ts';
import { fixedClock } from '../../src/platform/clock.ts';
import { type TestContext, testContext } from '../helpers/context.ts';

let ctx: TestContext;
afterEach(() => ctx?.cleanup());

const warnings = (lines: string[]) => lines.map((l) => JSON.parse(l)).filter((l) => l.level === 'warn');
const gauge = (c: TestContext) => /^verity_clock_skew_seconds (\S+)$/m.exec(c.metrics.render())?.[1];

test("on PostgreSQL an instance whose clock is off from the database server's says so and by how much", async () => {
  const lines: string[] = [];
  const clock = fixedClock(Date.now() + 90_000);
  ctx = await testContext({ engine: 'postgres', clock, log: jsonLogger('info', (l) => lines.push(l)) });
  const skew = checkClock(ctx)!;
  expect(skew).toBeGreaterThan(85);
  expect(skew).toBeLessThan(95);
  expect(Number(gauge(ctx))).toBeCloseTo(skew, 0);
  expect(warnings(lines)).toEqual([
    expect.objectContaining({
      msg: expect.stringContaining('clock differs'),
      aheadSeconds: expect.any(Number),
    }),
  ]);

  // Set right, it falls silent and the gauge follows; a clock behind is the same difference.
  clock.set(Date.now());
  lines.length = 0;
  expect(Math.abs(checkClock(ctx)!)).toBeLessThan(2);
  expect(Math.abs(Number(gauge(ctx)))).toBeLessThan(2);
  expect(warnings(lines)).toEqual([]);
  clock.set(Date.now() - 60_000);
  expect(checkClock(ctx)!).toBeLessThan(-55);
  expect(warnings(lines)).toHaveLength(1);
});

test('on SQLite, which shares the machine, there is nothing to compare', async () => {
  ctx = await testContext({ engine: 'sqlite' });
  expect(checkClock(ctx)).toBeUndefined();
  expect(gauge(ctx)).toBeUndefined();
});

test('a started instance checks its clock at once', async () => {
  const lines: string[] = [];
  ctx = await testContext({
    engine: 'postgres',
    clock: fixedClock(Date.now() - 3_600_000),
    log: jsonLogger('info', (l) => lines.push(l)),
  });
  const stop = startJobs(ctx, auditJobs);
  try {
    while (!warnings(lines).length) await Bun.sleep(10);
    expect(warnings(lines)[0].aheadSeconds).toBeLessThan(-3_590);
  } finally {
    stop();
  }
});
