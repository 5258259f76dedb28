import { afterEach, describe, expect, test } from 'bun:test';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { unix } from '../../src/platform/clock.ts';
import { dispatchDue } from '../../src/webhooks/dispatcher.ts';
import { sendTestEvent } from '../../src/webhooks/endpoints.ts';
import { enqueueEvent } from '../../src/webhooks/outbox.store.ts';
import { type TestContext, testContext } from '../helpers/context.ts';
import { LOCALHOST_OK, owner, type Receiver, receiver, sandboxEndpoint, verify } from './fixtures.ts';

let ctx: TestContext;
let rx: Receiver | undefined;
afterEach(async () => {
  await rx?.stop();
  rx = undefined;
  ctx?.cleanup();
});

const consentData = (applicationId: string) => ({
  consentId: 'cns_1',
  applicationId,
  environment: 'sandbox' as const,
  sub: 'sub-1',
  scopes: ['openid', 'email'],
  purpose: 'Sign in',
  at: '2026-06-01T12:00:00.000Z',
});

describe('webhook delivery', () => {
  test('a delivery carries the exact headers and a signature an independent HMAC check accepts', async () => {
    ctx = await testContext({ extra: LOCALHOST_OK });
    rx = receiver();
    const o = await owner(ctx);
    const ep = await sandboxEndpoint(ctx, o, rx.url);
    const envelope = ctx.db.sql.transaction(() =>
      enqueueEvent(ctx, {
        type: 'consent.granted',
        applicationId: o.applicationId,
        environment: 'sandbox',
        data: consentData(o.applicationId),
      }),
    );
    const outcomes = await dispatchDue(ctx);
    expect(outcomes.map((x) => x.status)).toEqual(['delivered']);
    expect(rx.received).toHaveLength(1);
    const req = rx.received[0]!;
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/hook');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers['user-agent']).toBe('Service-Webhooks/1.0');
    expect(req.headers['service-event-id']).toBe(envelope.id);
    expect(req.headers['service-event-type']).toBe('consent.granted');
    const body = JSON.parse(req.body);
    expect(body).toEqual({
      id: envelope.id,
      type: 'consent.granted',
      createdAt: '2026-06-01T12:00:00.000Z',
      data: consentData(o.applicationId),
    });
    // A UUIDv7 whose timestamp is the event's creation time (the injected clock's).
    expect(body.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(Number.parseInt(body.id.replace('-', '').slice(0, 12), 16)).toBe(Date.parse(body.createdAt));

    // Independent of Verity's code: node:crypto over t + "." + raw body.
    const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(req.headers['service-signature']!);
    expect(m).not.toBeNull();
    expect(Number(m![1])).toBe(unix(ctx.clock));
    const expected = createHmac('sha256', ep.secret).update(`${m![1]}.${req.body}`).digest();
    expect(timingSafeEqual(expected, Buffer.from(m![2]!, 'hex'))).toBe(true);

    // And the exported verifier, as the receiver guide tells integrators to use it.
    expect(await verify(req, [ep.secret], ctx.clock.now())).toEqual({ ok: true, timestamp: unix(ctx.clock) });
    expect((await verify(req, ['whsec_wrong'], ctx.clock.now())).ok).toBe(false);
    expect(
      (await verify({ ...req, body: req.body.replace('Sign in', 'Sign-in') }, [ep.secret], ctx.clock.now()))
        .ok,
    ).toBe(false);
  });

  test('only enabled endpoints subscribed to the event kind get a delivery', async () => {
    ctx = await testContext({ extra: LOCALHOST_OK });
    rx = receiver();
    const o = await owner(ctx);
    await sandboxEndpoint(ctx, o, `${rx.url}?e=granted`, ['consent.granted']);
    await sandboxEndpoint(ctx, o, `${rx.url}?e=revoked`, ['consent.revoked']);
    ctx.db.sql.transaction(() =>
      enqueueEvent(ctx, {
        type: 'consent.granted',
        applicationId: o.applicationId,
        environment: 'sandbox',
        data: consentData(o.applicationId),
      }),
    );
    await dispatchDue(ctx);
    expect(rx.received).toHaveLength(1);
    expect(rx.received[0]!.headers['service-event-type']).toBe('consent.granted');
  });

  test('a test event goes only to its endpoint, whatever it subscribes to', async () => {
    ctx = await testContext({ extra: LOCALHOST_OK });
    rx = receiver();
    const o = await owner(ctx);
    const a = await sandboxEndpoint(ctx, o, `${rx.url}/a`);
    await sandboxEndpoint(ctx, o, `${rx.url}/b`);
    const { eventId } = sendTestEvent(ctx, o.sandbox, o.applicationId, a.id);
    await dispatchDue(ctx);
    expect(rx.received).toHaveLength(1);
    expect(rx.received[0]!.path).toBe('/hook/a');
    expect(JSON.parse(rx.received[0]!.body)).toMatchObject({
      id: eventId,
      type: 'webhook.test',
      data: { endpointId: a.id },
    });
  });
});
