import { afterEach, describe, expect, test } from 'bun:test';
import { openDb } from '../../src/db/open.ts';
import { waitFor } from '../helpers/wait.ts';
import { type Fleet, startFleet } from './fleet.ts';

let fleet: Fleet | undefined;
afterEach(async () => {
  await fleet?.stop();
  fleet = undefined;
});

interface JobLine {
  instance: number;
  job: string;
  slot: string;
  ran: boolean;
}

/** The scheduled-job lines each instance has logged (at debug level). */
function jobLines(f: Fleet): JobLine[] {
  return f.urls.flatMap((_, instance) =>
    f
      .output(instance)
      .split('\n')
      .filter((l) => l.includes('"msg":"scheduled job'))
      .map((l) => JSON.parse(l) as { msg: string; job: string; slot: string })
      .map((l) => ({ instance, job: l.job, slot: l.slot, ran: l.msg === 'scheduled job' })),
  );
}

describe('scheduled jobs on three instances sharing one PostgreSQL database', () => {
  test('each scheduled time of a job runs in exactly one instance', async () => {
    fleet = await startFleet(3, { extraToml: '[log]\nlevel = "debug"' });
    const f = fleet;
    // The every-minute jobs (key rotation at :00, consent expiry at :15) come due within a minute.
    const key = (l: JobLine) => `${l.job} ${l.slot}`;
    const byTime = () => {
      const lines = jobLines(f);
      return [...new Set(lines.map(key))].map((k) => ({ time: k, list: lines.filter((l) => key(l) === k) }));
    };
    const everyoneFired = () => byTime().find(({ list }) => new Set(list.map((l) => l.instance)).size === 3);
    await waitFor(
      'a scheduled time all three instances fired for',
      () => everyoneFired() !== undefined,
      75_000,
    );

    for (const { time, list } of byTime()) {
      // Each instance fires once per time, and exactly one of them runs the job.
      expect(list.length, time).toBe(new Set(list.map((l) => l.instance)).size);
      expect(list.filter((l) => l.ran).length, time).toBe(1);
    }
    // The database holds the time claimed last for the job.
    const seen = everyoneFired()!.list[0]!;
    const db = await openDb(f.dbUrl);
    try {
      const row = db.sql.prepare<{ slot: number }>('SELECT slot FROM job_runs WHERE name = ?').get(seen.job);
      expect(row!.slot).toBeGreaterThanOrEqual(Date.parse(seen.slot) / 1000);
    } finally {
      db.close();
    }
  }, 120_000);
});
