import { afterEach, describe, expect, test } from 'bun:test';
import { createContext } from '../../src/bootstrap.ts';
import type { AppContext } from '../../src/context.ts';
import { type Job, runScheduled, startJobs } from '../../src/jobs.ts';
import { silentLogger } from '../../src/log.ts';
import { type TestContext, testContext } from '../helpers/context.ts';

let ctx: TestContext | undefined;
let other: AppContext | undefined;
afterEach(() => {
  other?.keys.close();
  other?.db.close();
  other = undefined;
  ctx?.cleanup();
  ctx = undefined;
});

/** Two instances on one database: the test's context and a second one on the same configuration. */
async function twoInstances() {
  ctx = await testContext();
  other = await createContext(ctx.config, { clock: ctx.clock, log: silentLogger });
  return [ctx, other] as const;
}

/** A job that counts its runs per instance. */
function countingJob(extra: Partial<Job> = {}) {
  const runs = new Map<AppContext, number>();
  const job: Job = {
    name: 'test.counting',
    schedule: '* * * * * *',
    run: (c) => void runs.set(c, (runs.get(c) ?? 0) + 1),
    ...extra,
  };
  return { job, runs };
}

const SLOT = Date.UTC(2026, 5, 1, 12) / 1000;

describe('scheduled jobs across instances', () => {
  test('each scheduled time runs in exactly one instance, whichever asks first', async () => {
    const [a, b] = await twoInstances();
    const { job, runs } = countingJob();
    expect(await runScheduled(a, job, SLOT)).toBe(true);
    expect(await runScheduled(b, job, SLOT)).toBe(false);
    expect(await runScheduled(a, job, SLOT)).toBe(false);
    expect(await runScheduled(b, job, SLOT + 60)).toBe(true);
    expect(await runScheduled(a, job, SLOT + 60)).toBe(false);
    // A late instance naming an older time runs nothing again.
    expect(await runScheduled(a, job, SLOT)).toBe(false);
    expect(runs.get(a)).toBe(1);
    expect(runs.get(b)).toBe(1);
  });

  test('jobs are claimed by name: one job taking a time leaves it free for another', async () => {
    const [a, b] = await twoInstances();
    const first = countingJob({ name: 'test.first' });
    const second = countingJob({ name: 'test.second' });
    expect(await runScheduled(a, first.job, SLOT)).toBe(true);
    expect(await runScheduled(b, second.job, SLOT)).toBe(true);
    expect(await runScheduled(b, first.job, SLOT)).toBe(false);
  });

  test('a job that acts on its own process runs in every instance', async () => {
    const [a, b] = await twoInstances();
    const { job, runs } = countingJob({ everyInstance: true });
    expect(await runScheduled(a, job, SLOT)).toBe(true);
    expect(await runScheduled(b, job, SLOT)).toBe(true);
    expect([runs.get(a), runs.get(b)]).toEqual([1, 1]);
  });

  test('on the real schedule, two instances firing every second run each second once between them', async () => {
    const [a, b] = await twoInstances();
    const { job, runs } = countingJob();
    const stops = [startJobs(a, [job]), startJobs(b, [job])];
    const started = Date.now();
    await Bun.sleep(3200);
    for (const stop of stops) stop();
    const seconds = Math.floor((Date.now() - started) / 1000);
    const total = (runs.get(a) ?? 0) + (runs.get(b) ?? 0);
    // Croner fires both instances at every second boundary it passes; one of them runs it.
    expect(total).toBeGreaterThanOrEqual(seconds - 1);
    expect(total).toBeLessThanOrEqual(seconds + 1);
  });
});
