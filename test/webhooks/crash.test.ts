import { afterEach, describe, expect, test } from 'bun:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseConfig } from '../../src/config/load.ts';
import { databaseTarget, openDb } from '../../src/db/open.ts';
import { cli } from '../helpers/cli.ts';
import { tempDir, testToml } from '../helpers/context.ts';
import { serveOnFreePort } from '../helpers/serve-process.ts';
import { freePort } from '../helpers/server.ts';
import { waitFor } from '../helpers/wait.ts';
import { type Receiver, receiver, verify } from './fixtures.ts';

const BURST = 240;

let cleanup: (() => void) | undefined;
let rx: Receiver | undefined;
let child: ReturnType<typeof Bun.spawn> | undefined;
afterEach(async () => {
  child?.kill('SIGKILL');
  await child?.exited;
  child = undefined;
  await rx?.stop();
  rx = undefined;
  cleanup?.();
});

describe('webhook outbox under a crash', () => {
  test('SIGKILL in the middle of a burst: every event delivered at least once, one body per id, database intact', async () => {
    const tmp = tempDir('verity-crash');
    cleanup = tmp.cleanup;
    // The receiver takes a little while per request, so deliveries are in flight when the server dies.
    // It listens before the server's port is picked, so the two can never be handed the same port.
    rx = receiver(async () => {
      await Bun.sleep(15);
      return new Response(null, { status: 204 });
    });
    const configPath = join(tmp.dir, 'verity.toml');
    const base = testToml(tmp.dir);
    const toml = (port: number) => `${base}
[server]
listen = "127.0.0.1:${port}"
base_url = "http://127.0.0.1:${port}"
[webhooks]
allow_localhost_in_sandbox = true
timeout = "2s"
lease = "2s"
[rate_limits.developer]
requests = 100000
`;
    writeFileSync(configPath, toml(await freePort()));

    expect((await cli('migrate', '--config', configPath)).code).toBe(0);
    const { developerId } = (
      await cli('developers', 'create', '--email', 'crash@example.com', '--config', configPath, '--json')
    ).json;
    const { key } = (
      await cli(
        'developers',
        'keys',
        'create',
        developerId,
        '--env',
        'sandbox',
        '--config',
        configPath,
        '--json',
      )
    ).json;
    const app = await cli(
      'apps',
      'create',
      '--name',
      'Crash',
      '--type',
      'public',
      '--redirect-uri',
      'https://app.example/cb',
      '--scopes',
      'openid',
      '--owner',
      developerId,
      '--config',
      configPath,
      '--json',
    );
    expect(app.code).toBe(0);
    const auth = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
    let started = await serveOnFreePort(configPath, toml);
    child = started.proc;
    const hooks = () => `${started.url}/v1/developer/applications/${app.json.applicationId}/webhooks`;
    const created = await fetch(hooks(), {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ url: rx.url, events: ['consent.granted'] }),
    });
    expect(created.status).toBe(201);
    const endpoint = (await created.json()).data;

    // The burst: test events through the real API, a few at a time; the server dies half-way through.
    const acknowledged = new Set<string>();
    let sent = 0;
    let killed = false;
    const sendOne = async (): Promise<boolean> => {
      try {
        const r = await fetch(`${hooks()}/${endpoint.id}/test`, { method: 'POST', headers: auth });
        if (r.status !== 202) return false;
        acknowledged.add((await r.json()).data.eventId);
        return true;
      } catch {
        return false;
      }
    };
    const worker = async () => {
      while (!killed && sent < BURST) {
        sent++;
        await sendOne();
        if (!killed && acknowledged.size >= BURST / 2 && rx!.received.length > 0) {
          killed = true;
          child!.kill('SIGKILL');
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    await child.exited;
    expect(killed).toBe(true);
    const receivedAtKill = rx.received.length;
    expect(receivedAtKill).toBeLessThan(acknowledged.size);

    // Restart on the same database and finish the burst.
    started = await serveOnFreePort(configPath, toml);
    child = started.proc;
    while (acknowledged.size < BURST) expect(await sendOne()).toBe(true);

    // Every committed event (acknowledged or not) reaches the receiver.
    const db = await openDb(databaseTarget(parseConfig(base)));
    const committed = () =>
      db.sql
        .prepare<{ id: string }>("SELECT id FROM webhook_events WHERE type = 'webhook.test'")
        .all()
        .map((r) => r.id);
    const receivedIds = () => new Set(rx!.received.map((r) => r.headers['service-event-id']!));
    await waitFor(
      'every event to be delivered',
      () => {
        const got = receivedIds();
        return committed().every((id) => got.has(id));
      },
      60_000,
    );
    const ids = committed();
    expect(ids.length).toBeGreaterThanOrEqual(BURST);
    const got = receivedIds();
    for (const id of acknowledged) expect(got.has(id)).toBe(true);
    await waitFor(
      'the outbox to settle',
      () =>
        db.sql
          .prepare<{ n: number }>("SELECT COUNT(*) AS n FROM webhook_deliveries WHERE status != 'delivered'")
          .get()!.n === 0,
      20_000,
    );

    // At least once, never two bodies for one id, each signed correctly at its own time.
    const bodies = new Map<string, Set<string>>();
    for (const r of rx.received) {
      const id = r.headers['service-event-id']!;
      if (!bodies.has(id)) bodies.set(id, new Set());
      bodies.get(id)!.add(r.body);
      expect(JSON.parse(r.body).id).toBe(id);
    }
    for (const [, set] of bodies) expect(set.size).toBe(1);
    for (const r of rx.received.slice(0, 20)) {
      const t = Number(/t=(\d+)/.exec(r.headers['service-signature']!)![1]);
      expect((await verify(r, [endpoint.secret], new Date(t * 1000))).ok).toBe(true);
    }

    child.kill('SIGTERM');
    await child.exited;
    child = undefined;
    if (db.engine === 'sqlite')
      expect(db.sql.prepare('PRAGMA integrity_check').get()).toEqual({ integrity_check: 'ok' });
    db.close();
  }, 90_000);
});
