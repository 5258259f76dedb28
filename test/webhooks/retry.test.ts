import { afterEach, describe, expect, test } from 'bun:test';
import { jsonLogger } from '../../src/log.ts';
import { unix } from '../../src/platform/clock.ts';
import { listAllAttempts, redeliverAsOperator } from '../../src/webhooks/deliveries.ts';
import { dispatchDue } from '../../src/webhooks/dispatcher.ts';
import { RETRY_DELAYS_SECONDS } from '../../src/webhooks/schedule.ts';
import { type TestContext, testContext } from '../helpers/context.ts';
import { keptLog } from '../helpers/log.ts';
import { freePort } from '../helpers/server.ts';
import { waitFor } from '../helpers/wait.ts';
import {
  enqueueConsentEvent,
  LOCALHOST_OK,
  type Owner,
  owner,
  type Receiver,
  receiverPool,
  sandboxEndpoint,
  tamperSecrets,
  verify,
} from './fixtures.ts';

let ctx: TestContext;
const receivers = receiverPool();
const rx = receivers.start;
afterEach(async () => {
  await receivers.stopAll();
  ctx?.cleanup();
});

const consentEvent = (o: Owner) => enqueueConsentEvent(ctx, o, 'consent.revoked');

/**
 * Walks the whole schedule under the fixed clock: one second before each step nothing is sent, at
 * the step exactly one attempt is; after the seventh failure the delivery is failed for good.
 * Returns the unix time of each attempt.
 */
async function walkSchedule(): Promise<number[]> {
  const times: number[] = [];
  const first = await dispatchDue(ctx);
  expect(first.map((o) => o.attempt)).toEqual([1]);
  expect(first[0]!.status).toBe('retrying');
  times.push(unix(ctx.clock));
  for (const [i, delay] of RETRY_DELAYS_SECONDS.entries()) {
    ctx.clock.advance((delay - 1) * 1000);
    expect(await dispatchDue(ctx)).toEqual([]);
    ctx.clock.advance(1000);
    const out = await dispatchDue(ctx);
    expect(out.map((o) => o.attempt)).toEqual([i + 2]);
    expect(out[0]!.status).toBe(i + 2 === 7 ? 'failed' : 'retrying');
    times.push(unix(ctx.clock));
  }
  ctx.clock.advance(30 * 86_400_000);
  expect(await dispatchDue(ctx)).toEqual([]);
  return times;
}

/** Same event id and body on every attempt, each signed afresh at its own time. */
async function expectSameEventFreshSignatures(r: Receiver, eventId: string, secret: string, times: number[]) {
  expect(r.received).toHaveLength(times.length);
  const bodies = new Set(r.received.map((x) => x.body));
  expect(bodies.size).toBe(1);
  const signatures = new Set<string>();
  for (const [i, req] of r.received.entries()) {
    expect(req.headers['service-event-id']).toBe(eventId);
    expect(JSON.parse(req.body).id).toBe(eventId);
    const at = new Date(times[i]! * 1000);
    expect(await verify(req, [secret], at)).toEqual({ ok: true, timestamp: times[i]! });
    signatures.add(req.headers['service-signature']!);
  }
  expect(signatures.size).toBe(times.length);
}

describe('webhook retries', () => {
  test('a refused connection is retried on the schedule, then the delivery fails', async () => {
    ctx = await testContext({ extra: LOCALHOST_OK });
    const lines: string[] = [];
    ctx.log = jsonLogger('debug', (l) => lines.push(l));
    const o = await owner(ctx);
    const port = await freePort();
    await sandboxEndpoint(ctx, o, `http://localhost:${port}/hook`);
    const ev = consentEvent(o);
    const times = await walkSchedule();
    const expected = [times[0]!];
    for (const d of RETRY_DELAYS_SECONDS) expected.push(expected.at(-1)! + d);
    expect(times).toEqual(expected);
    const history = listAllAttempts(ctx, { eventId: ev.id }).deliveries;
    expect(history.map((h) => h.attempt)).toEqual([7, 6, 5, 4, 3, 2, 1]);
    expect(history[0]!.status).toBe('failed');
    expect(history[0]!.nextAttemptAt).toBeNull();
    expect(history.slice(1).every((h) => h.status === 'retrying' && h.responseStatus === null)).toBe(true);
    expect(history[1]!.error).toBe('target unreachable');
    // The errno is for the operator: in the log, not in the history the developer reads.
    expect(JSON.stringify(history)).not.toContain('ECONNREFUSED');
    const logged = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'webhook target failed');
    expect(logged.map((l) => l.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(logged[0].detail).toContain('ECONNREFUSED');
    expect(history[6]!.nextAttemptAt).toBe(new Date((times[0]! + 60) * 1000).toISOString());
  });

  test('a 500 is retried on the schedule with the same event id and a fresh signature each time', async () => {
    ctx = await testContext({ extra: LOCALHOST_OK });
    const o = await owner(ctx);
    const r = rx(() => new Response('boom', { status: 500 }));
    const ep = await sandboxEndpoint(ctx, o, r.url);
    const ev = consentEvent(o);
    const times = await walkSchedule();
    await expectSameEventFreshSignatures(r, ev.id, ep.secret, times);
    const history = listAllAttempts(ctx, { eventId: ev.id }).deliveries;
    expect(history.every((h) => h.responseStatus === 500 && h.error === 'HTTP 500')).toBe(true);
  });

  test('a signing secret that cannot be decrypted fails each attempt on the schedule, sending nothing', async () => {
    ctx = await testContext({ extra: LOCALHOST_OK });
    const { log, lines } = keptLog<{ msg: string; endpointId: string }>();
    ctx.log = log;
    const o = await owner(ctx);
    const r = rx();
    const ep = await sandboxEndpoint(ctx, o, r.url);
    tamperSecrets(ctx, ep.id);
    const ev = consentEvent(o);
    await walkSchedule();
    expect(r.received).toHaveLength(0);
    const history = listAllAttempts(ctx, { eventId: ev.id }).deliveries;
    expect(history.map((h) => h.attempt)).toEqual([7, 6, 5, 4, 3, 2, 1]);
    expect(history[0]!.status).toBe('failed');
    expect(history.every((h) => h.error === 'signing secret unavailable' && h.responseStatus === null)).toBe(
      true,
    );
    // The operator is told why each time (attempts are a minute or more apart).
    const unreadable = lines.filter((l) => l.msg === 'webhook signing secret unreadable');
    expect(unreadable.map((l) => l.endpointId)).toEqual(history.map(() => ep.id));
  });

  test('a redirect is never followed and counts as a failure', async () => {
    ctx = await testContext({ extra: LOCALHOST_OK });
    const o = await owner(ctx);
    const elsewhere = rx();
    const r = rx(() => new Response(null, { status: 302, headers: { Location: elsewhere.url } }));
    const ep = await sandboxEndpoint(ctx, o, r.url);
    const ev = consentEvent(o);
    const times = await walkSchedule();
    await expectSameEventFreshSignatures(r, ev.id, ep.secret, times);
    expect(elsewhere.received).toHaveLength(0);
    const last = listAllAttempts(ctx, { eventId: ev.id, limit: 1 }).deliveries[0]!;
    expect(last).toMatchObject({ status: 'failed', responseStatus: 302 });
    expect(last.error).toContain('redirect (302) not followed');
  });

  test('Retry-After on 429 and 503 is honoured when later than the schedule, ignored when earlier', async () => {
    ctx = await testContext({ extra: LOCALHOST_OK });
    const o = await owner(ctx);
    const answers = [
      () => new Response('slow down', { status: 429, headers: { 'Retry-After': '600' } }),
      () => new Response('busy', { status: 503, headers: { 'Retry-After': '5' } }),
      // An HTTP date three hours ahead: later than the 5-minute step.
      () =>
        new Response('busy', {
          status: 503,
          headers: { 'Retry-After': new Date(ctx.clock.now().getTime() + 3 * 3600_000).toUTCString() },
        }),
      () => new Response('ok'),
    ];
    let i = 0;
    const r = rx(() => answers[i++]!());
    const ep = await sandboxEndpoint(ctx, o, r.url);
    const ev = consentEvent(o);
    const t0 = unix(ctx.clock);

    expect((await dispatchDue(ctx))[0]).toMatchObject({
      attempt: 1,
      status: 'retrying',
      responseStatus: 429,
    });
    ctx.clock.advance(599_000);
    expect(await dispatchDue(ctx)).toEqual([]);
    ctx.clock.advance(1000);
    // 503 with Retry-After 5 s: the schedule's 5 minutes win.
    expect((await dispatchDue(ctx))[0]).toMatchObject({
      attempt: 2,
      status: 'retrying',
      responseStatus: 503,
    });
    ctx.clock.advance(299_000);
    expect(await dispatchDue(ctx)).toEqual([]);
    ctx.clock.advance(1000);
    expect((await dispatchDue(ctx))[0]).toMatchObject({
      attempt: 3,
      status: 'retrying',
      responseStatus: 503,
    });
    // The date wins over the 30-minute step.
    ctx.clock.advance(3 * 3600_000 - 1000);
    expect(await dispatchDue(ctx)).toEqual([]);
    ctx.clock.advance(1000);
    expect((await dispatchDue(ctx))[0]).toMatchObject({
      attempt: 4,
      status: 'delivered',
      responseStatus: 200,
    });

    const times = [t0, t0 + 600, t0 + 900, t0 + 900 + 3 * 3600];
    await expectSameEventFreshSignatures(r, ev.id, ep.secret, times);
    const history = listAllAttempts(ctx, { eventId: ev.id }).deliveries.reverse();
    expect(history.map((h) => h.nextAttemptAt)).toEqual([
      new Date((t0 + 600) * 1000).toISOString(),
      new Date((t0 + 900) * 1000).toISOString(),
      new Date((t0 + 900 + 3 * 3600) * 1000).toISOString(),
      null,
    ]);
  });

  test('a receiver that hangs is cut off after 5 seconds and retried a minute later', async () => {
    ctx = await testContext({ extra: LOCALHOST_OK });
    const o = await owner(ctx);
    let hang = true;
    const r = rx(async () => {
      if (hang) await new Promise((res) => setTimeout(res, 6000));
      return new Response('ok');
    });
    const ep = await sandboxEndpoint(ctx, o, r.url);
    const ev = consentEvent(o);
    const t0 = unix(ctx.clock);
    const started = performance.now();
    const [first] = await dispatchDue(ctx);
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(4900);
    expect(elapsed).toBeLessThan(5900);
    expect(first).toMatchObject({ attempt: 1, status: 'retrying', responseStatus: null });
    expect(first!.error).toMatch(/timed out/);
    const [row] = listAllAttempts(ctx, { eventId: ev.id }).deliveries;
    expect(row!.durationMs).toBeGreaterThanOrEqual(4900);

    hang = false;
    ctx.clock.advance(60_000);
    expect((await dispatchDue(ctx))[0]).toMatchObject({ attempt: 2, status: 'delivered' });
    await expectSameEventFreshSignatures(r, ev.id, ep.secret, [t0, t0 + 60]);
  }, 15_000);
});

describe('a redelivery asked for while an attempt is in flight', () => {
  test('is sent at once, though that attempt then fails and goes to the retry schedule', async () => {
    ctx = await testContext({ extra: LOCALHOST_OK });
    const o = await owner(ctx);
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let calls = 0;
    const rx = receivers.start(async () => {
      // The first attempt is held, then fails; every later one succeeds.
      if (++calls === 1) {
        await gate;
        return new Response('down', { status: 500 });
      }
      return new Response('ok');
    });
    await sandboxEndpoint(ctx, o, rx.url, ['consent.granted']);
    const event = enqueueConsentEvent(ctx, o, 'consent.granted');
    const first = dispatchDue(ctx);
    await waitFor('the first attempt to be in flight', () => rx.received.length === 1);
    expect(redeliverAsOperator(ctx, event.id).deliveries).toHaveLength(1);
    release();
    await first;
    // The same moment, the next wake-up: the redelivery goes out, not a minute later.
    await dispatchDue(ctx);
    expect(rx.received.length).toBe(2);
  });
});
