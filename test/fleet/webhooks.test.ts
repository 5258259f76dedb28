import { afterEach, describe, expect, test } from 'bun:test';
import { type Db, openDb } from '../../src/db/open.ts';
import { cli } from '../helpers/cli.ts';
import { waitFor } from '../helpers/wait.ts';
import { type Receiver, receiver } from '../webhooks/fixtures.ts';
import { type Fleet, startFleet } from './fleet.ts';

const PER_ENDPOINT = 4;
const HOLD_MS = 200;

let fleet: Fleet | undefined;
let rx: Receiver | undefined;
let db: Db | undefined;
afterEach(async () => {
  db?.close();
  db = undefined;
  await fleet?.stop();
  fleet = undefined;
  await rx?.stop();
  rx = undefined;
});

/** A developer key and a sandbox application with a webhook endpoint at `url`, made through the fleet. */
async function sandboxEndpoint(f: Fleet, url: string) {
  const config = ['--config', f.configPath, '--json'];
  const { developerId } = (await cli('developers', 'create', '--email', 'fleet@example.com', ...config)).json;
  const { key } = (await cli('developers', 'keys', 'create', developerId, '--env', 'sandbox', ...config))
    .json;
  const app = await cli(
    'apps',
    'create',
    '--name',
    'Fleet',
    '--type',
    'public',
    '--redirect-uri',
    'https://app.example/cb',
    '--scopes',
    'openid',
    '--owner',
    developerId,
    ...config,
  );
  expect(app.code).toBe(0);
  const auth = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
  const hooks = (i: number) => `${f.urls[i]}/v1/developer/applications/${app.json.applicationId}/webhooks`;
  const created = await fetch(hooks(0), {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ url, events: ['consent.granted'] }),
  });
  expect(created.status).toBe(201);
  const endpointId: string = (await created.json()).data.id;
  /** A test event queued through instance i; its id once acknowledged. */
  return async (i: number): Promise<string> => {
    const r = await fetch(`${hooks(i)}/${endpointId}/test`, { method: 'POST', headers: auth });
    expect(r.status).toBe(202);
    return (await r.json()).data.eventId;
  };
}

/** Each request the receiver took, from arrival to answer. */
interface Call {
  eventId: string;
  body: string;
  start: number;
  end?: number;
}

describe('webhooks on three instances sharing one PostgreSQL database', () => {
  test('every event delivered, one body per id; a killed instance loses nothing and comes back; no attempt is made twice at once', async () => {
    const calls: Call[] = [];
    let inFlight = 0;
    let mostInFlight = 0;
    rx = receiver(async (req) => {
      const call: Call = {
        eventId: req.headers['service-event-id']!,
        body: req.body,
        start: performance.now(),
      };
      calls.push(call);
      mostInFlight = Math.max(mostInFlight, ++inFlight);
      await Bun.sleep(HOLD_MS);
      inFlight--;
      call.end = performance.now();
      return new Response(null, { status: 204 });
    });
    fleet = await startFleet(3, {
      extraToml: `[webhooks]
allow_localhost_in_sandbox = true
timeout = "2s"
lease = "2s"
concurrency_per_endpoint = ${PER_ENDPOINT}
[rate_limits.developer]
requests = 100000
`,
    });
    const f = fleet;
    const send = await sandboxEndpoint(f, rx.url);
    const fleetDb = await openDb(f.dbUrl);
    db = fleetDb;
    const settled = () =>
      waitFor(
        'the outbox to settle',
        () =>
          fleetDb.sql
            .prepare<{ n: number }>(
              "SELECT COUNT(*) AS n FROM webhook_deliveries WHERE status != 'delivered'",
            )
            .get()!.n === 0,
        30_000,
      );
    const acknowledged: string[] = [];
    const received = () => new Set(calls.filter((c) => c.end !== undefined).map((c) => c.eventId));

    // A burst through all three instances at once: their dispatchers claim side by side.
    await Promise.all(
      Array.from({ length: 6 }, async (_, w) => {
        for (let k = 0; k < 10; k++) acknowledged.push(await send((w + k) % 3));
      }),
    );
    await settled();

    // Instance 1 delivers what it queues at once; it is killed while the receiver holds one of those.
    // The others pick up work queued elsewhere only on their tick at every even second: this starts
    // just after one, and is over long before the next.
    await Bun.sleep(2100 - (Date.now() % 2000));
    const viaOne = new Set<string>();
    const holding = () => calls.find((c) => viaOne.has(c.eventId) && c.end === undefined);
    await waitFor(
      'instance 1 to be delivering its own event',
      async () => {
        if (holding()) return true;
        const id = await send(1);
        viaOne.add(id);
        acknowledged.push(id);
        return false;
      },
      10_000,
    );
    await f.kill(1);
    const cutOff = holding()!.eventId;

    // The other two carry on, and take over what instance 1 held once its leases expire.
    for (let k = 0; k < 20; k++) acknowledged.push(await send(k % 2 === 0 ? 0 : 2));
    // Back on the same configuration, instance 1 queues and delivers again.
    await f.restart(1);
    for (let k = 0; k < 5; k++) acknowledged.push(await send(1));
    await waitFor(
      'every acknowledged event to be delivered',
      () => acknowledged.every((id) => received().has(id)),
      30_000,
    );
    await settled();
    // One history row per attempt of a delivery: no attempt was recorded twice.
    expect(
      fleetDb.sql
        .prepare(
          'SELECT delivery_id, attempt FROM webhook_attempts GROUP BY delivery_id, attempt HAVING COUNT(*) > 1',
        )
        .all(),
    ).toEqual([]);

    // The event cut off by the kill came again, from another instance after the lease.
    expect(calls.filter((c) => c.eventId === cutOff).length).toBeGreaterThanOrEqual(2);
    for (const id of new Set(calls.map((c) => c.eventId))) {
      const list = calls.filter((c) => c.eventId === id);
      // One body per id, and it names that id.
      expect(new Set(list.map((c) => c.body)).size).toBe(1);
      expect(JSON.parse(list[0]!.body).id).toBe(id);
      // Never two deliveries of one event at the same time.
      const spans = list
        .map((c) => [c.start, c.end ?? Number.POSITIVE_INFINITY] as const)
        .sort((a, b) => a[0] - b[0]);
      for (let k = 1; k < spans.length; k++) expect(spans[k]![0]).toBeGreaterThanOrEqual(spans[k - 1]![1]);
    }
    // The endpoint's limit holds over the three instances together.
    expect(mostInFlight).toBeLessThanOrEqual(PER_ENDPOINT);
    expect(mostInFlight).toBeGreaterThan(1);
  }, 120_000);
});
