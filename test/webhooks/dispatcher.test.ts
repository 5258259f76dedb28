import { afterEach, describe, expect, test } from 'bun:test';
import { setApplicationFields } from '../../src/apps/application.store.ts';
import { NotFoundError } from '../../src/errors.ts';
import { unix } from '../../src/platform/clock.ts';
import { pruneWebhookHistory, redeliverAsOperator } from '../../src/webhooks/deliveries.ts';
import { createDeliveryStore } from '../../src/webhooks/delivery.store.ts';
import { dispatchDue, MAX_IN_FLIGHT_PER_TENANT, startDispatcher } from '../../src/webhooks/dispatcher.ts';
import { type TestContext, testContext } from '../helpers/context.ts';
import { waitFor } from '../helpers/wait.ts';
import {
  enqueueConsentEvent,
  LOCALHOST_OK,
  type Owner,
  owner,
  receiverPool,
  sandboxEndpoint,
} from './fixtures.ts';

let ctx: TestContext;
const receivers = receiverPool();
const rx = receivers.start;
afterEach(async () => {
  await receivers.stopAll();
  ctx?.cleanup();
});

const granted = (o: Owner) => enqueueConsentEvent(ctx, o, 'consent.granted');

/** A receiver that holds every request until `release()`, counting those it holds. */
function heldReceiver() {
  let release!: () => void;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  const held = Object.assign(
    rx(async () => {
      held.most = Math.max(held.most, ++held.inFlight);
      await gate;
      held.inFlight--;
      return new Response('ok');
    }),
    { inFlight: 0, most: 0, release },
  );
  return held;
}

describe('webhook dispatcher', () => {
  test('a slow receiver holds at most its own slots and never delays another endpoint', async () => {
    ctx = await testContext({ extra: LOCALHOST_OK });
    const o = await owner(ctx);
    const slow = heldReceiver();
    const fast = rx();
    await sandboxEndpoint(ctx, o, slow.url, ['consent.granted']);
    await sandboxEndpoint(ctx, o, fast.url, ['consent.granted']);
    for (let i = 0; i < 6; i++) granted(o);

    const drained = dispatchDue(ctx);
    await waitFor('six deliveries to the fast receiver', () => fast.received.length === 6);
    expect(slow.received).toHaveLength(2);
    slow.release();
    const outcomes = await drained;
    expect(outcomes).toHaveLength(12);
    expect(outcomes.every((x) => x.status === 'delivered')).toBe(true);
    expect(slow.received).toHaveLength(6);
    expect(slow.most).toBe(2);
  });

  test("one developer's slow receivers hold at most a quarter of the slots: another's event goes out", async () => {
    ctx = await testContext({ extra: LOCALHOST_OK });
    const slow = heldReceiver();
    const fast = rx();
    // One developer, two applications of 16 endpoints each, two events each: 64 deliveries, as many
    // as a process sends at once.
    const apps = [await owner(ctx), await owner(ctx)];
    for (const app of apps)
      for (let i = 0; i < 16; i++) await sandboxEndpoint(ctx, app, `${slow.url}/${i}`, ['consent.granted']);
    setApplicationFields(ctx.db, apps[1]!.applicationId, { ownerDeveloperId: apps[0]!.developerId });
    for (const app of apps) for (let i = 0; i < 2; i++) granted(app);
    // Another developer's event, due after all of those.
    ctx.clock.advance(1000);
    const other = await owner(ctx);
    await sandboxEndpoint(ctx, other, fast.url, ['consent.granted']);
    granted(other);

    const drained = dispatchDue(ctx);
    await waitFor("the other developer's delivery", () => fast.received.length === 1);
    await waitFor('the slow deliveries under way', () => slow.inFlight === MAX_IN_FLIGHT_PER_TENANT);
    slow.release();
    const outcomes = await drained;
    expect(outcomes).toHaveLength(65);
    expect(outcomes.every((x) => x.status === 'delivered')).toBe(true);
    expect(slow.most).toBe(MAX_IN_FLIGHT_PER_TENANT);
  });

  test('a delivery leased by a process that died is attempted again once the lease expires', async () => {
    ctx = await testContext({ extra: `${LOCALHOST_OK}\nlease = "30s"\ntimeout = "5s"` });
    const r = rx();
    const o = await owner(ctx);
    await sandboxEndpoint(ctx, o, r.url);
    const ev = granted(o);
    const store = createDeliveryStore(ctx.db);
    // The other process: leases the row, then is gone before recording anything.
    const [stale] = store.claimDue({ now: unix(ctx.clock), leaseSeconds: 30, perEndpoint: 2, limit: 10 });
    expect(stale!.eventId).toBe(ev.id);

    expect(await dispatchDue(ctx)).toEqual([]);
    ctx.clock.advance(29_000);
    expect(await dispatchDue(ctx)).toEqual([]);
    ctx.clock.advance(1000);
    const [out] = await dispatchDue(ctx);
    expect(out).toMatchObject({ eventId: ev.id, attempt: 1, status: 'delivered' });
    expect(r.received.map((x) => x.headers['service-event-id'])).toEqual([ev.id]);

    // The dead process's late write cannot undo the delivery.
    const changed = store.recordAttempt(stale!, {
      id: 'wa_late',
      attempt: 1,
      status: 'retrying',
      responseStatus: null,
      error: 'late',
      durationMs: 1,
      attemptedAt: unix(ctx.clock),
      nextAttemptAt: unix(ctx.clock) + 60,
    });
    expect(changed).toBe(false);
    const row = ctx.db.sql
      .prepare<{ status: string }>('SELECT status FROM webhook_deliveries WHERE event_id = ?')
      .get(ev.id);
    expect(row!.status).toBe('delivered');
  });

  test('a disabled endpoint gets no new deliveries and its queued ones wait until it is enabled again', async () => {
    ctx = await testContext({ extra: LOCALHOST_OK });
    const r = rx();
    const o = await owner(ctx);
    const ep = await sandboxEndpoint(ctx, o, r.url);
    granted(o);
    ctx.db.sql.prepare('UPDATE webhook_endpoints SET enabled = 0 WHERE id = ?').run(ep.id);
    granted(o);
    expect(await dispatchDue(ctx)).toEqual([]);
    ctx.db.sql.prepare('UPDATE webhook_endpoints SET enabled = 1 WHERE id = ?').run(ep.id);
    expect(await dispatchDue(ctx)).toHaveLength(1);
    expect(r.received).toHaveLength(1);
  });

  test('an event no enabled endpoint takes is not stored, and cannot be sent later', async () => {
    ctx = await testContext({ extra: LOCALHOST_OK });
    const r = rx();
    const o = await owner(ctx);
    const stored = () => ctx.db.sql.prepare<{ id: string }>('SELECT id FROM webhook_events').all();
    const unheard = granted(o);
    expect(stored()).toEqual([]);

    const ep = await sandboxEndpoint(ctx, o, r.url, ['consent.revoked']);
    granted(o);
    expect(stored()).toEqual([]);
    const revoked = enqueueConsentEvent(ctx, o, 'consent.revoked');
    expect(stored()).toEqual([{ id: revoked.id }]);
    expect(await dispatchDue(ctx)).toHaveLength(1);
    expect(r.received.map((x) => x.headers['service-event-id'])).toEqual([revoked.id]);
    ctx.db.sql.prepare('UPDATE webhook_endpoints SET enabled = 0 WHERE id = ?').run(ep.id);
    enqueueConsentEvent(ctx, o, 'consent.revoked');
    expect(stored()).toEqual([{ id: revoked.id }]);

    // An endpoint subscribed afterwards cannot be sent what nobody took.
    const later = await sandboxEndpoint(ctx, o, r.url);
    expect(() => redeliverAsOperator(ctx, unheard.id, later.id)).toThrow(NotFoundError);
  });

  test('the serving dispatcher wakes as soon as an event commits, and counts it in the metrics', async () => {
    ctx = await testContext({ extra: LOCALHOST_OK });
    const r = rx();
    const failing = rx(() => new Response(null, { status: 500 }));
    const o = await owner(ctx);
    await sandboxEndpoint(ctx, o, r.url);
    await sandboxEndpoint(ctx, o, failing.url);
    startDispatcher(ctx);
    const ev = granted(o);
    // No dispatchDue and no scheduled job: the commit alone wakes the dispatcher.
    await waitFor(
      'one delivery to each receiver',
      () => r.received.length === 1 && failing.received.length === 1,
    );
    expect(r.received[0]!.headers['service-event-id']).toBe(ev.id);
    await waitFor('the failure recorded', () =>
      ctx.metrics.render().includes('verity_webhook_deliveries_retried_total{cause="status"} 1'),
    );
    const text = ctx.metrics.render();
    expect(text).toContain('verity_webhook_deliveries_queued_total 2');
    expect(text).toContain('verity_webhook_deliveries_delivered_total 1');
    expect(text).toContain('verity_webhook_deliveries_pending 1');

    // A rolled-back change leaves no event and nothing to deliver.
    expect(() =>
      ctx.db.sql.transaction(() => {
        granted(o);
        throw new Error('the change failed');
      }),
    ).toThrow('the change failed');
    expect(ctx.db.sql.prepare<{ n: number }>('SELECT COUNT(*) AS n FROM webhook_events').get()!.n).toBe(1);
  });
});

describe('webhook history retention', () => {
  test('finished events and their history go after 90 days; events still pending stay', async () => {
    ctx = await testContext({ extra: LOCALHOST_OK });
    const ok = rx();
    const o = await owner(ctx);
    const a = await sandboxEndpoint(ctx, o, ok.url, ['consent.granted']);
    granted(o);
    await dispatchDue(ctx);
    // Queued, then held: its endpoint is disabled before it could be sent.
    const stuck = granted(o);
    ctx.db.sql.prepare('UPDATE webhook_endpoints SET enabled = 0 WHERE id = ?').run(a.id);
    const count = (table: string) =>
      ctx.db.sql.prepare<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`).get()!.n;
    expect(count('webhook_attempts')).toBe(1);

    ctx.clock.advance(89 * 86_400_000);
    expect(pruneWebhookHistory(ctx, unix(ctx.clock))).toBe(0);
    ctx.clock.advance(2 * 86_400_000);
    expect(pruneWebhookHistory(ctx, unix(ctx.clock))).toBe(1);
    expect(count('webhook_attempts')).toBe(0);
    const left = ctx.db.sql.prepare<{ id: string }>('SELECT id FROM webhook_events').all();
    expect(left.map((r) => r.id)).toEqual([stuck.id]);
  });

  test('an old event redelivered keeps its new history for 90 days after that delivery', async () => {
    ctx = await testContext({ extra: LOCALHOST_OK });
    const ok = rx();
    const o = await owner(ctx);
    await sandboxEndpoint(ctx, o, ok.url, ['consent.granted']);
    const event = granted(o);
    await dispatchDue(ctx);
    ctx.clock.advance(89 * 86_400_000);
    redeliverAsOperator(ctx, event.id);
    await dispatchDue(ctx);
    ctx.clock.advance(2 * 86_400_000);
    expect(pruneWebhookHistory(ctx, unix(ctx.clock))).toBe(0);
    ctx.clock.advance(89 * 86_400_000);
    expect(pruneWebhookHistory(ctx, unix(ctx.clock))).toBe(1);
  });
});
