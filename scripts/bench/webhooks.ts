/**
 * Webhook delivery throughput: events queued in the outbox, delivered by the real dispatcher over real
 * HTTP to a receiver on a loopback port, signed and recorded as in production.
 *
 *   bun scripts/bench/webhooks.ts [--events 2000] [--endpoints 4] [--concurrency 2] [--receiver-ms 0]
 *
 * Prints deliveries per second (and a JSON line with --json).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createApplication } from '../../src/apps/registration.ts';
import { createContext } from '../../src/bootstrap.ts';
import { parseConfig } from '../../src/config/load.ts';
import { createDeveloper } from '../../src/developer/developer.store.ts';
import { silentLogger } from '../../src/log.ts';
import { dispatchDue } from '../../src/webhooks/dispatcher.ts';
import { createEndpoint } from '../../src/webhooks/endpoints.ts';
import { enqueueEvent } from '../../src/webhooks/outbox.store.ts';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '2000' },
    endpoints: { type: 'string', default: '4' },
    concurrency: { type: 'string', default: '2' },
    'receiver-ms': { type: 'string', default: '0' },
    json: { type: 'boolean', default: false },
  },
});
const events = Number(values.events);
const endpointCount = Number(values.endpoints);
const concurrency = Number(values.concurrency);
const receiverMs = Number(values['receiver-ms']);

const dir = mkdtempSync(join(tmpdir(), 'verity-bench-webhooks-'));
let received = 0;
const receiver = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  async fetch(req) {
    await req.arrayBuffer();
    if (receiverMs > 0) await Bun.sleep(receiverMs);
    received++;
    return new Response(null, { status: 204 });
  },
});

try {
  const config = parseConfig(
    `[database]\npath = "${join(dir, 'verity.db')}"\n[keys]\ndir = "${join(dir, 'keys')}"\n` +
      `[webhooks]\nallow_localhost_in_sandbox = true\nconcurrency_per_endpoint = ${concurrency}\n`,
  );
  const ctx = await createContext(config, { log: silentLogger });
  const { developerId } = createDeveloper(ctx.db, ctx.clock, { email: 'bench@example.com', actor: 'cli' });
  const { applicationId } = await createApplication(ctx.db, ctx.clock, {
    name: 'Bench',
    type: 'public',
    redirectUris: ['https://bench.example/cb'],
    scopes: ['openid'],
    ownerDeveloperId: developerId,
    actor: 'cli',
  });
  const dev = { developerId, environment: 'sandbox' as const };
  for (let i = 0; i < endpointCount; i++)
    await createEndpoint(ctx, dev, applicationId, {
      url: `http://localhost:${receiver.port}/hook/${i}`,
      events: ['consent.granted'],
    });

  // Queue everything first, so the run measures the dispatcher alone.
  const perEvent = endpointCount;
  const batches = Math.ceil(events / perEvent);
  ctx.db.sql.transaction(() => {
    for (let i = 0; i < batches; i++)
      enqueueEvent(ctx, {
        type: 'consent.granted',
        applicationId,
        environment: 'sandbox',
        data: {
          consentId: `cns_${i}`,
          applicationId,
          environment: 'sandbox',
          sub: `sub-${i}`,
          scopes: ['openid'],
          purpose: 'Benchmark',
          at: ctx.clock.now().toISOString(),
        },
      });
  });
  const expected = batches * perEvent;

  const started = performance.now();
  const outcomes = await dispatchDue(ctx);
  const seconds = (performance.now() - started) / 1000;
  const delivered = outcomes.filter((o) => o.status === 'delivered').length;
  if (delivered !== expected || received !== expected)
    throw new Error(`expected ${expected} deliveries, got ${delivered} recorded and ${received} received`);
  const rate = delivered / seconds;
  const result = {
    deliveries: delivered,
    endpoints: endpointCount,
    concurrencyPerEndpoint: concurrency,
    receiverMs,
    seconds: Number(seconds.toFixed(3)),
    deliveriesPerSecond: Math.round(rate),
  };
  console.log(
    `${delivered} webhook deliveries to ${endpointCount} endpoint(s) (concurrency ${concurrency} each, receiver ${receiverMs} ms) in ${seconds.toFixed(2)} s: ${Math.round(rate)} deliveries/s`,
  );
  if (values.json) console.log(JSON.stringify(result));
  ctx.db.close();
} finally {
  await receiver.stop(true);
  rmSync(dir, { recursive: true, force: true });
}
