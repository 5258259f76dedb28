import { afterEach, describe, expect, test } from 'bun:test';
import { createDeliveryStore } from '../../src/webhooks/delivery.store.ts';
import { type TestContext, testContext } from '../helpers/context.ts';
import { enqueueConsentEvent, LOCALHOST_OK, type Owner, owner, sandboxEndpoint } from './fixtures.ts';

let ctx: TestContext;
afterEach(() => ctx?.cleanup());

/** Every wake-up of this process's dispatcher, with the number of deliveries it was told about. */
function wakeUps(c: TestContext): number[] {
  const seen: number[] = [];
  c.signals.on('webhooks', (n) => seen.push(n));
  return seen;
}

async function withEndpoint(): Promise<Owner> {
  ctx = await testContext({ extra: LOCALHOST_OK });
  const o = await owner(ctx);
  await sandboxEndpoint(ctx, o, 'http://127.0.0.1:9/hook', ['consent.granted']);
  return o;
}

describe('dispatcher wake-up', () => {
  test('a replayed batch wakes the dispatcher once per committed unit and not for the unit that threw', async () => {
    const o = await withEndpoint();
    const seen = wakeUps(ctx);
    let runs = 0;
    const results = await Promise.allSettled([
      ctx.db.batch(() => {
        runs++;
        enqueueConsentEvent(ctx, o, 'consent.granted');
      }),
      ctx.db.batch(() => {
        enqueueConsentEvent(ctx, o, 'consent.granted');
        throw new Error('refused');
      }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected']);
    expect(runs).toBe(2);
    await new Promise((r) => setTimeout(r, 0));
    expect(seen).toEqual([1]);
    expect(createDeliveryStore(ctx.db).pendingCount()).toBe(1);
  });

  test('a rolled-back transaction wakes nothing; a committed one wakes once, after COMMIT', async () => {
    const o = await withEndpoint();
    const seen = wakeUps(ctx);
    expect(() =>
      ctx.db.sql.transaction(() => {
        enqueueConsentEvent(ctx, o, 'consent.granted');
        throw new Error('refused');
      }),
    ).toThrow('refused');
    await new Promise((r) => setTimeout(r, 0));
    expect(seen).toEqual([]);
    expect(createDeliveryStore(ctx.db).pendingCount()).toBe(0);

    ctx.db.sql.transaction(() => {
      enqueueConsentEvent(ctx, o, 'consent.granted');
      expect(seen).toEqual([]);
    });
    expect(seen).toEqual([1]);
  });
});
