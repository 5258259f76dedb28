import { afterEach, describe, expect, test } from 'bun:test';
import { unix } from '../../src/platform/clock.ts';
import { dispatchDue } from '../../src/webhooks/dispatcher.ts';
import { rotateSecret, sendTestEvent } from '../../src/webhooks/endpoints.ts';
import { parseSignatureHeader } from '../../src/webhooks/verify.ts';
import { type TestContext, testContext } from '../helpers/context.ts';
import { LOCALHOST_OK, owner, type Receiver, receiver, sandboxEndpoint, verify } from './fixtures.ts';

let ctx: TestContext;
let rx: Receiver | undefined;
afterEach(async () => {
  await rx?.stop();
  rx = undefined;
  ctx?.cleanup();
});

const v1Count = (header: string | undefined) => parseSignatureHeader(header)!.signatures.length;

describe('signing secret rotation', () => {
  test('during the overlap each delivery is signed with both secrets, afterwards only with the new one', async () => {
    ctx = await testContext({ extra: LOCALHOST_OK });
    rx = receiver();
    const o = await owner(ctx);
    const ep = await sandboxEndpoint(ctx, o, rx.url);
    const oldSecret = ep.secret;

    const rotated = await rotateSecret(ctx, o.sandbox, o.applicationId, ep.id, {});
    expect(rotated.id).toBe(ep.id);
    expect(rotated.secret).toMatch(/^whsec_[\w-]{43}$/);
    expect(rotated.secret).not.toBe(oldSecret);
    expect(rotated.previousSecretExpiresAt).toBe(new Date((unix(ctx.clock) + 86_400) * 1000).toISOString());

    sendTestEvent(ctx, o.sandbox, o.applicationId, ep.id);
    await dispatchDue(ctx);
    const during = rx.received[0]!;
    expect(v1Count(during.headers['service-signature'])).toBe(2);
    // A receiver still on the old secret and one already on the new one both accept it.
    expect((await verify(during, [oldSecret], ctx.clock.now())).ok).toBe(true);
    expect((await verify(during, [rotated.secret], ctx.clock.now())).ok).toBe(true);

    ctx.clock.advance(86_399_000);
    sendTestEvent(ctx, o.sandbox, o.applicationId, ep.id);
    await dispatchDue(ctx);
    expect(v1Count(rx.received[1]!.headers['service-signature'])).toBe(2);

    ctx.clock.advance(1000);
    sendTestEvent(ctx, o.sandbox, o.applicationId, ep.id);
    await dispatchDue(ctx);
    const after = rx.received[2]!;
    expect(v1Count(after.headers['service-signature'])).toBe(1);
    expect((await verify(after, [oldSecret], ctx.clock.now())).ok).toBe(false);
    expect((await verify(after, [rotated.secret], ctx.clock.now())).ok).toBe(true);
  });

  test('expireCurrentInSeconds 0 ends the old secret at once', async () => {
    ctx = await testContext({ extra: LOCALHOST_OK });
    rx = receiver();
    const o = await owner(ctx);
    const ep = await sandboxEndpoint(ctx, o, rx.url);
    const rotated = await rotateSecret(ctx, o.sandbox, o.applicationId, ep.id, { expireCurrentInSeconds: 0 });
    expect(rotated.previousSecretExpiresAt).toBe(ctx.clock.now().toISOString());
    sendTestEvent(ctx, o.sandbox, o.applicationId, ep.id);
    await dispatchDue(ctx);
    const req = rx.received[0]!;
    expect(v1Count(req.headers['service-signature'])).toBe(1);
    expect((await verify(req, [ep.secret], ctx.clock.now())).ok).toBe(false);
    expect((await verify(req, [rotated.secret], ctx.clock.now())).ok).toBe(true);
  });

  test('a retry is signed afresh with the secrets valid at its own time', async () => {
    ctx = await testContext({ extra: LOCALHOST_OK });
    let fail = true;
    rx = receiver(() => new Response(null, { status: fail ? 500 : 204 }));
    const o = await owner(ctx);
    const ep = await sandboxEndpoint(ctx, o, rx.url);
    const rotated = await rotateSecret(ctx, o.sandbox, o.applicationId, ep.id, {
      expireCurrentInSeconds: 30,
    });
    const { eventId } = sendTestEvent(ctx, o.sandbox, o.applicationId, ep.id);
    await dispatchDue(ctx);
    fail = false;
    ctx.clock.advance(60_000);
    expect((await dispatchDue(ctx))[0]).toMatchObject({ attempt: 2, status: 'delivered', eventId });
    const [first, second] = rx.received;
    expect(first!.body).toBe(second!.body);
    expect(v1Count(first!.headers['service-signature'])).toBe(2);
    expect(v1Count(second!.headers['service-signature'])).toBe(1);
    expect((await verify(second!, [rotated.secret], ctx.clock.now())).ok).toBe(true);
  });

  test('a rotation during an overlap ends the older secret at once: never more than two sign', async () => {
    ctx = await testContext({ extra: LOCALHOST_OK });
    rx = receiver();
    const o = await owner(ctx);
    const ep = await sandboxEndpoint(ctx, o, rx.url);
    const second = await rotateSecret(ctx, o.sandbox, o.applicationId, ep.id, {
      expireCurrentInSeconds: 3600,
    });
    let last = second;
    for (let i = 0; i < 5; i++)
      last = await rotateSecret(ctx, o.sandbox, o.applicationId, ep.id, { expireCurrentInSeconds: 3600 });
    sendTestEvent(ctx, o.sandbox, o.applicationId, ep.id);
    await dispatchDue(ctx);
    const req = rx.received[0]!;
    expect(v1Count(req.headers['service-signature'])).toBe(2);
    expect((await verify(req, [ep.secret], ctx.clock.now())).ok).toBe(false);
    expect((await verify(req, [second.secret], ctx.clock.now())).ok).toBe(false);
    expect((await verify(req, [last.secret], ctx.clock.now())).ok).toBe(true);
    // The secret current before the last rotation is the other one, until its overlap ends.
    ctx.clock.advance(3_600_000);
    sendTestEvent(ctx, o.sandbox, o.applicationId, ep.id);
    await dispatchDue(ctx);
    expect(v1Count(rx.received[1]!.headers['service-signature'])).toBe(1);
  });

  test('secrets left valid by earlier rotations: a delivery signs with the newest two only', async () => {
    ctx = await testContext({ extra: LOCALHOST_OK });
    rx = receiver();
    const o = await owner(ctx);
    const ep = await sandboxEndpoint(ctx, o, rx.url);
    ctx.clock.advance(1000);
    const second = await rotateSecret(ctx, o.sandbox, o.applicationId, ep.id, {});
    ctx.clock.advance(1000);
    const third = await rotateSecret(ctx, o.sandbox, o.applicationId, ep.id, {});
    // As a database written while rotations left every older secret valid holds them.
    ctx.db.sql
      .prepare('UPDATE webhook_secrets SET expires_at = ? WHERE endpoint_id = ? AND expires_at IS NOT NULL')
      .run(unix(ctx.clock) + 3600, ep.id);
    sendTestEvent(ctx, o.sandbox, o.applicationId, ep.id);
    await dispatchDue(ctx);
    const req = rx.received[0]!;
    expect(v1Count(req.headers['service-signature'])).toBe(2);
    expect((await verify(req, [third.secret], ctx.clock.now())).ok).toBe(true);
    expect((await verify(req, [second.secret], ctx.clock.now())).ok).toBe(true);
    expect((await verify(req, [ep.secret], ctx.clock.now())).ok).toBe(false);
  });
});
