import { afterEach, expect, test } from 'bun:test';
import { dispatchDue } from '../../src/webhooks/dispatcher.ts';
import { type TestContext, testContext } from '../helpers/context.ts';
import { developerApi, hooksPath, LOCALHOST_OK, owner, type Receiver, receiver } from './fixtures.ts';

let ctx: TestContext;
let rx: Receiver | undefined;
afterEach(async () => {
  await rx?.stop();
  rx = undefined;
  ctx?.cleanup();
});

const EVENTS = ['consent.granted', 'consent.revoked'];

test('another developer’s endpoint or event named under one’s own application, or a key of the other environment, reaches nothing', async () => {
  ctx = await testContext({ extra: LOCALHOST_OK });
  rx = receiver();
  const alice = await owner(ctx);
  const mallory = await owner(ctx);
  const api = developerApi(ctx);
  const aliceHooks = hooksPath(alice.applicationId);
  const malloryHooks = hooksPath(mallory.applicationId);
  const aliceEp = (await api('POST', aliceHooks, alice.sandboxKey, { url: rx.url, events: EVENTS })).json
    .data;
  const malloryEp = (await api('POST', malloryHooks, mallory.sandboxKey, { url: rx.url, events: EVENTS }))
    .json.data;
  const aliceEvent = (await api('POST', `${aliceHooks}/${aliceEp.id}/test`, alice.sandboxKey)).json.data
    .eventId;
  await dispatchDue(ctx);
  const receivedBefore = rx.received.length;
  expect(receivedBefore).toBe(1);

  // Mallory, through her own application: Alice's endpoint and event ids.
  const confused: [string, string, unknown?][] = [
    ['GET', `${malloryHooks}/${aliceEp.id}`],
    ['PATCH', `${malloryHooks}/${aliceEp.id}`, { url: 'http://localhost:9/stolen' }],
    ['DELETE', `${malloryHooks}/${aliceEp.id}`],
    ['POST', `${malloryHooks}/${aliceEp.id}/test`],
    ['POST', `${malloryHooks}/${aliceEp.id}/rotate-secret`, {}],
    ['POST', `${malloryHooks}/events/${aliceEvent}/redeliver`, {}],
    ['POST', `${malloryHooks}/events/${aliceEvent}/redeliver`, { endpointId: malloryEp.id }],
    ['POST', `${malloryHooks}/events/${aliceEvent}/redeliver`, { endpointId: aliceEp.id }],
  ];
  for (const [method, path, body] of confused) {
    const r = await api(method, path, mallory.sandboxKey, body);
    expect({ method, path, body, status: r.status }).toEqual({ method, path, body, status: 404 });
    expect(JSON.stringify(r.json)).not.toContain('whsec_');
  }
  // Her history filtered by Alice's ids is simply empty.
  for (const q of [`endpointId=${aliceEp.id}`, `eventId=${aliceEvent}`]) {
    const r = await api('GET', `${malloryHooks}/deliveries/history?${q}`, mallory.sandboxKey);
    expect(r.status).toBe(200);
    expect(r.json.data.deliveries).toEqual([]);
  }
  // Alice's production key on her own sandbox endpoint and event, for every verb.
  const otherEnv: [string, string, unknown?][] = [
    ['GET', `${aliceHooks}/${aliceEp.id}`],
    ['PATCH', `${aliceHooks}/${aliceEp.id}`, { enabled: false }],
    ['DELETE', `${aliceHooks}/${aliceEp.id}`],
    ['POST', `${aliceHooks}/${aliceEp.id}/test`],
    ['POST', `${aliceHooks}/${aliceEp.id}/rotate-secret`, {}],
    ['POST', `${aliceHooks}/events/${aliceEvent}/redeliver`, {}],
  ];
  for (const [method, path, body] of otherEnv) {
    const r = await api(method, path, alice.productionKey, body);
    expect({ method, path, status: r.status }).toEqual({ method, path, status: 404 });
  }
  const prodHistory = await api('GET', `${aliceHooks}/deliveries/history`, alice.productionKey);
  expect(prodHistory.json.data.deliveries).toEqual([]);

  // Nothing moved: Alice's endpoint as it was, no new delivery, no second secret.
  await dispatchDue(ctx);
  expect(rx.received.length).toBe(receivedBefore);
  const still = await api('GET', `${aliceHooks}/${aliceEp.id}`, alice.sandboxKey);
  expect(still.json.data).toMatchObject({ url: rx.url, enabled: true });
  const secrets = ctx.db.sql
    .prepare<{ n: number }>('SELECT count(*) AS n FROM webhook_secrets WHERE endpoint_id = ?')
    .get(aliceEp.id)!;
  expect(secrets.n).toBe(1);
});
