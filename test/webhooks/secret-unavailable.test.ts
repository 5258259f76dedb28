import { afterEach, describe, expect, spyOn, test } from 'bun:test';
import type { AppContext } from '../../src/context.ts';
import { unix } from '../../src/platform/clock.ts';
import { listAllAttempts } from '../../src/webhooks/deliveries.ts';
import { Dispatcher, dispatchDue, startDispatcher } from '../../src/webhooks/dispatcher.ts';
import { type TestContext, testContext } from '../helpers/context.ts';
import { keptLog } from '../helpers/log.ts';
import {
  enqueueConsentEvent,
  LOCALHOST_OK,
  type Owner,
  owner,
  receiverPool,
  sandboxEndpoint,
  tamperSecrets,
} from './fixtures.ts';

let ctx: TestContext;
const receivers = receiverPool();
afterEach(async () => {
  await receivers.stopAll();
  ctx?.cleanup();
});

/** A context whose log lines are kept, stamped by the fixed clock. */
async function loggedContext(): Promise<{ c: TestContext; lines: { msg: string; endpointId?: string }[] }> {
  ctx = await testContext({ extra: LOCALHOST_OK });
  const { log, lines } = keptLog<{ msg: string; endpointId?: string }>('debug', ctx.clock.now);
  return { c: { ...ctx, log }, lines };
}

const granted = (c: AppContext, o: Owner) => enqueueConsentEvent(c, o, 'consent.granted');

describe('a signing secret that cannot be decrypted', () => {
  test('does not spin the dispatcher: one failed attempt, one log line, a few rounds', async () => {
    const { c, lines } = await loggedContext();
    const o = await owner(c);
    const r = receivers.start();
    const ep = await sandboxEndpoint(c, o, r.url);
    tamperSecrets(c, ep.id);
    const d = startDispatcher(c);
    const t0 = unix(c.clock);

    // Ten seconds of a serving process. The dispatcher only works when woken: by the enqueue, by the
    // dispatch job (every 2 s), or by an attempt it just finished. The spin was that last kind, which
    // needs no clock, so it shows in any real window (~3,500 lines/s); the clock decides only what
    // is due, and here it goes through the same ten seconds with a wake every second. A second of
    // real time therefore sees everything ten would, without making the suite wait for it. The
    // rounds are counted rather than CPU time, which other threads of the test process add to.
    const rounds = spyOn(Dispatcher.prototype as unknown as { fill(): unknown }, 'fill');
    const ev = granted(c, o);
    for (let s = 0; s < 10; s++) {
      await Bun.sleep(100);
      c.clock.advance(1000);
      d.wake();
    }
    const fills = rounds.mock.calls.length;
    rounds.mockRestore();

    expect(lines.length).toBeLessThan(10);
    expect(lines).toEqual([{ ...lines[0]!, msg: 'webhook signing secret unreadable', endpointId: ep.id }]);
    // The spin kept a core busy with thousands of rounds; idle, a round per wake and per attempt.
    expect(fills).toBeGreaterThan(0);
    expect(fills).toBeLessThan(30);
    expect(r.received).toHaveLength(0);
    const history = listAllAttempts(c, { eventId: ev.id }).deliveries;
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({
      attempt: 1,
      status: 'retrying',
      responseStatus: null,
      error: 'signing secret unavailable',
      nextAttemptAt: new Date((t0 + 60) * 1000).toISOString(),
    });
  });

  test('is logged at most once per endpoint per minute, measured by the clock', async () => {
    const { c, lines } = await loggedContext();
    const o = await owner(c);
    const a = await sandboxEndpoint(c, o, receivers.start().url);
    const b = await sandboxEndpoint(c, o, receivers.start().url);
    tamperSecrets(c, a.id);
    tamperSecrets(c, b.id);
    const unreadable = () => lines.filter((l) => l.msg === 'webhook signing secret unreadable');

    for (let i = 0; i < 3; i++) granted(c, o);
    const first = await dispatchDue(c);
    expect(first).toHaveLength(6);
    expect(first.every((x) => x.status === 'retrying' && x.error === 'signing secret unavailable')).toBe(
      true,
    );
    expect(
      unreadable()
        .map((l) => l.endpointId)
        .sort(),
    ).toEqual([a.id, b.id].sort());

    // 59 s later a new event fails on both endpoints: nothing more in the log.
    c.clock.advance(59_000);
    granted(c, o);
    expect(await dispatchDue(c)).toHaveLength(2);
    expect(unreadable()).toHaveLength(2);

    // A minute after the first line, the retries of the first three events are due: one line each.
    c.clock.advance(1000);
    expect(await dispatchDue(c)).toHaveLength(6);
    expect(unreadable()).toHaveLength(4);
  });

  test('opens again once the secret is readable: the next attempt on the schedule is delivered', async () => {
    const { c } = await loggedContext();
    const o = await owner(c);
    const r = receivers.start();
    const ep = await sandboxEndpoint(c, o, r.url);
    const [row] = c.db.sql
      .prepare<{ id: string; ciphertext: string }>(
        'SELECT id, ciphertext FROM webhook_secrets WHERE endpoint_id = ?',
      )
      .all(ep.id);
    tamperSecrets(c, ep.id);
    const ev = granted(c, o);
    expect((await dispatchDue(c)).map((x) => x.status)).toEqual(['retrying']);

    c.db.sql.prepare('UPDATE webhook_secrets SET ciphertext = ? WHERE id = ?').run(row!.ciphertext, row!.id);
    c.clock.advance(60_000);
    expect((await dispatchDue(c)).map((x) => x.status)).toEqual(['delivered']);
    expect(r.received.map((x) => x.headers['service-event-id'])).toEqual([ev.id]);
  });
});
