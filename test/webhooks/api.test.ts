import { afterEach, describe, expect, test } from 'bun:test';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createApp } from '../../src/app.ts';
import { createApiKey, revokeApiKey } from '../../src/developer/api-key.store.ts';
import { dispatchDue } from '../../src/webhooks/dispatcher.ts';
import { cli } from '../helpers/cli.ts';
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

describe('developer API: authentication and ownership', () => {
  test('a missing, malformed, unknown, revoked or other-environment key gets the same 401', async () => {
    ctx = await testContext();
    const o = await owner(ctx);
    const api = developerApi(ctx);
    const path = hooksPath(o.applicationId);
    const { keyId, key } = await import('../../src/developer/api-key.store.ts').then((m) =>
      m.createApiKey(ctx.db, ctx.clock, o.developerId, 'sandbox'),
    );
    revokeApiKey(ctx.db, ctx.clock, keyId);
    const attempts = [
      undefined,
      'nonsense',
      'dk_test_unknownunknownunknownunknownunknownunkn',
      key,
      // The sandbox key's secret part presented with the production prefix.
      `dk_live_${o.sandboxKey.slice('dk_test_'.length)}`,
    ];
    for (const [i, k] of attempts.entries()) {
      const r = await api('GET', path, k);
      expect(r.status).toBe(401);
      expect(r.headers.get('WWW-Authenticate')).toStartWith('Bearer');
      // Failed attempts are counted (per client address) and labelled like any other call.
      expect(r.headers.get('X-RateLimit-Limit')).toBe('120');
      expect(r.headers.get('X-RateLimit-Remaining')).toBe(String(119 - i));
      expect(r.json.error.code).toBe('INVALID_API_KEY');
      expect(r.json.error.requestId).toBe(r.headers.get('X-Request-Id'));
    }
    expect((await api('GET', path, o.sandboxKey)).status).toBe(200);
  });

  test("another owner's application is a 404 indistinguishable from an unknown one", async () => {
    ctx = await testContext({ extra: LOCALHOST_OK });
    const alice = await owner(ctx);
    const mallory = await owner(ctx);
    const api = developerApi(ctx);
    const created = await api('POST', hooksPath(alice.applicationId), alice.sandboxKey, {
      url: 'http://localhost:9/hook',
      events: EVENTS,
    });
    expect(created.status).toBe(201);
    const id = created.json.data.id;
    const probes: [string, string, unknown?][] = [
      ['GET', hooksPath(alice.applicationId)],
      ['POST', hooksPath(alice.applicationId), { url: 'http://localhost:9/x', events: EVENTS }],
      ['GET', `${hooksPath(alice.applicationId)}/${id}`],
      ['PATCH', `${hooksPath(alice.applicationId)}/${id}`, { enabled: false }],
      ['DELETE', `${hooksPath(alice.applicationId)}/${id}`],
      ['POST', `${hooksPath(alice.applicationId)}/${id}/test`],
      ['POST', `${hooksPath(alice.applicationId)}/${id}/rotate-secret`, {}],
      ['GET', `${hooksPath(alice.applicationId)}/deliveries/history`],
    ];
    for (const [method, path, body] of probes) {
      const theirs = await api(method, path, mallory.sandboxKey, body);
      const unknown = await api(
        method,
        path.replace(alice.applicationId, 'app_doesnotexist'),
        mallory.sandboxKey,
        body,
      );
      expect({ method, path, status: theirs.status }).toEqual({ method, path, status: 404 });
      expect(theirs.json.error.code).toBe('NOT_FOUND');
      expect(unknown.status).toBe(404);
      expect(theirs.json.error.message).toBe(unknown.json.error.message);
    }
    // Mallory's own endpoint id under Alice's application is unknown too, and Alice's endpoint is intact.
    const still = await api('GET', `${hooksPath(alice.applicationId)}/${id}`, alice.sandboxKey);
    expect(still.json.data.enabled).toBe(true);
  });

  test('a key sees only its own environment', async () => {
    ctx = await testContext({ extra: LOCALHOST_OK });
    const o = await owner(ctx);
    const api = developerApi(ctx);
    const sandbox = await api('POST', hooksPath(o.applicationId), o.sandboxKey, {
      url: 'http://localhost:9/hook',
      events: EVENTS,
    });
    expect(sandbox.json.data.environment).toBe('sandbox');
    expect(
      (await api('GET', `${hooksPath(o.applicationId)}/${sandbox.json.data.id}`, o.productionKey)).status,
    ).toBe(404);
    expect((await api('GET', hooksPath(o.applicationId), o.productionKey)).json.data.endpoints).toEqual([]);
    const mismatch = await api('POST', hooksPath(o.applicationId), o.sandboxKey, {
      url: 'http://localhost:9/hook',
      events: EVENTS,
      environment: 'production',
    });
    expect(mismatch.status).toBe(400);
    expect(mismatch.json.error.fields[0].path).toBe('environment');
  });

  test('an application without an approved production environment is a 404 for a production key', async () => {
    ctx = await testContext();
    const o = await owner(ctx, { production: false });
    const api = developerApi(ctx);
    expect((await api('GET', hooksPath(o.applicationId), o.productionKey)).status).toBe(404);
    expect((await api('GET', hooksPath(o.applicationId), o.sandboxKey)).status).toBe(200);
  });

  test('the developer API is rate-limited per developer: a second key shares the limit', async () => {
    ctx = await testContext({ extra: '[rate_limits.developer]\nrequests = 3\nwindow = "1m"' });
    const o = await owner(ctx);
    const other = await owner(ctx);
    const api = developerApi(ctx);
    for (let i = 0; i < 3; i++) {
      const r = await api('GET', hooksPath(o.applicationId), o.sandboxKey);
      expect(r.status).toBe(200);
      expect(r.headers.get('X-RateLimit-Remaining')).toBe(String(2 - i));
    }
    const limited = await api('GET', hooksPath(o.applicationId), o.sandboxKey);
    expect(limited.status).toBe(429);
    expect(limited.json.error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(Number(limited.headers.get('Retry-After'))).toBeGreaterThan(0);
    const second = await createApiKey(ctx.db, ctx.clock, o.developerId, 'sandbox');
    expect((await api('GET', hooksPath(o.applicationId), second.key)).status).toBe(429);
    expect((await api('GET', hooksPath(other.applicationId), other.sandboxKey)).status).toBe(200);
    ctx.clock.advance(60_000);
    expect((await api('GET', hooksPath(o.applicationId), o.sandboxKey)).status).toBe(200);
  });
});

describe('developer API: endpoints', () => {
  test('create shows the secret once; it is stored sealed; list, get, update and delete work', async () => {
    ctx = await testContext({ extra: LOCALHOST_OK });
    const o = await owner(ctx);
    const api = developerApi(ctx);
    const created = await api('POST', hooksPath(o.applicationId), o.sandboxKey, {
      url: 'http://localhost:9/hook',
      events: ['consent.granted', 'consent.granted', 'consent.revoked'],
      environment: 'sandbox',
      description: 'Orders backend',
    });
    expect(created.status).toBe(201);
    const d = created.json.data;
    expect(Object.keys(d).sort()).toEqual(
      [
        'createdAt',
        'description',
        'enabled',
        'environment',
        'events',
        'id',
        'secret',
        'status',
        'updatedAt',
        'url',
      ].sort(),
    );
    expect(d).toMatchObject({
      url: 'http://localhost:9/hook',
      events: ['consent.granted', 'consent.revoked'],
      environment: 'sandbox',
      status: 'enabled',
      createdAt: ctx.clock.now().toISOString(),
    });
    expect(d.secret).toMatch(/^whsec_[\w-]{43}$/);

    // The database holds no clear secret; the sealing key sits in the keys directory.
    const dump = JSON.stringify(ctx.db.sql.prepare('SELECT * FROM webhook_secrets').all());
    expect(dump).not.toContain(d.secret);
    expect(dump).not.toContain(d.secret.slice(6));
    expect(existsSync(join(ctx.dir, 'keys', 'webhook-secrets.secret'))).toBe(true);

    const got = await api('GET', `${hooksPath(o.applicationId)}/${d.id}`, o.sandboxKey);
    expect(got.status).toBe(200);
    expect(got.json.data.secret).toBeUndefined();
    const listed = await api('GET', hooksPath(o.applicationId), o.sandboxKey);
    expect(listed.json.data.endpoints.map((e: { id: string }) => e.id)).toEqual([d.id]);
    expect(JSON.stringify(listed.json)).not.toContain(d.secret);

    ctx.clock.advance(5000);
    const patched = await api('PATCH', `${hooksPath(o.applicationId)}/${d.id}`, o.sandboxKey, {
      events: ['claim_access.completed'],
      enabled: false,
    });
    expect(patched.status).toBe(200);
    expect(patched.json.data).toMatchObject({
      events: ['claim_access.completed'],
      enabled: false,
      status: 'disabled',
      updatedAt: ctx.clock.now().toISOString(),
    });
    const test = await api('POST', `${hooksPath(o.applicationId)}/${d.id}/test`, o.sandboxKey);
    expect(test.status).toBe(409);
    expect(test.json.error.code).toBe('ENDPOINT_DISABLED');
    const badUrl = await api('PATCH', `${hooksPath(o.applicationId)}/${d.id}`, o.sandboxKey, {
      url: 'https://10.0.0.1/x',
    });
    expect(badUrl.status).toBe(400);

    const deleted = await api('DELETE', `${hooksPath(o.applicationId)}/${d.id}`, o.sandboxKey);
    expect(deleted.status).toBe(204);
    expect((await api('GET', `${hooksPath(o.applicationId)}/${d.id}`, o.sandboxKey)).status).toBe(404);
  });

  test('a configured secret_key seals the secrets instead of a generated key file', async () => {
    ctx = await testContext({
      extra: `${LOCALHOST_OK}\nsecret_key = "operator-chosen-key-material-of-32-bytes"`,
    });
    const o = await owner(ctx);
    const api = developerApi(ctx);
    const r = await api('POST', hooksPath(o.applicationId), o.sandboxKey, {
      url: 'http://localhost:9/h',
      events: EVENTS,
    });
    expect(r.status).toBe(201);
    expect(existsSync(join(ctx.dir, 'keys', 'webhook-secrets.secret'))).toBe(false);
  });

  test('bodies are validated with the offending fields named', async () => {
    ctx = await testContext({ extra: LOCALHOST_OK });
    const o = await owner(ctx);
    const api = developerApi(ctx);
    const path = hooksPath(o.applicationId);
    const cases: [unknown, string][] = [
      [{}, 'url'],
      [{ url: 'http://localhost:9/h' }, 'events'],
      [{ url: 'http://localhost:9/h', events: [] }, 'events'],
      [{ url: 'http://localhost:9/h', events: ['consent.exploded'] }, 'events'],
      [{ url: 'http://localhost:9/h', events: EVENTS, description: 'x'.repeat(501) }, 'description'],
      ['{not json', '(body)'],
    ];
    for (const [body, field] of cases) {
      const r = await api('POST', path, o.sandboxKey, body);
      expect(r.status).toBe(400);
      expect(r.json.error.code).toBe('VALIDATION_FAILED');
      expect(r.json.error.fields.map((f: { path: string }) => f.path)).toContain(field);
    }
    const created = await api('POST', path, o.sandboxKey, { url: 'http://localhost:9/h', events: EVENTS });
    expect(created.headers.get('cache-control')).toBe('no-store');
    const ep = created.json.data;
    for (const body of [
      { expireCurrentInSeconds: -1 },
      { expireCurrentInSeconds: 1.5 },
      { expireCurrentInSeconds: 'soon' },
    ]) {
      const r = await api('POST', `${path}/${ep.id}/rotate-secret`, o.sandboxKey, body);
      expect(r.status).toBe(400);
      expect(r.json.error.fields[0].path).toBe('expireCurrentInSeconds');
    }
    const rotated = await api('POST', `${path}/${ep.id}/rotate-secret`, o.sandboxKey);
    expect(rotated.status).toBe(200);
    // A new secret, shown once: no cache may keep the answer.
    expect(rotated.headers.get('cache-control')).toBe('no-store');
    expect(Object.keys(rotated.json.data).sort()).toEqual(['id', 'previousSecretExpiresAt', 'secret']);
    expect((await api('PATCH', `${path}/${ep.id}`, o.sandboxKey, {})).status).toBe(400);

    // A misspelt field is named, not dropped while the rest applies.
    const typo = await api('PATCH', `${path}/${ep.id}`, o.sandboxKey, {
      enable: false,
      description: 'paused',
    });
    expect(typo.status).toBe(400);
    expect(typo.json.error.fields).toEqual([{ path: 'enable', message: 'is not a field of this request' }]);
    expect((await api('GET', `${path}/${ep.id}`, o.sandboxKey)).json.data.description).toBe('');
    // A URL the parser would rewrite (delivered elsewhere than it reads), a description with control
    // characters.
    for (const url of [
      'http://localhost:9/h\u0000',
      'http://localhost:9/a\tb',
      ' http://localhost:9/x',
      'http://localhost:9/a/../b',
    ]) {
      const r = await api('POST', path, o.sandboxKey, { url, events: EVENTS });
      expect({ url, field: r.json.error?.fields[0].path }).toEqual({ url, field: 'url' });
    }
    const coloured = { url: 'http://localhost:9/h3', events: EVENTS, description: 'a\u001b[31mb' };
    expect((await api('POST', path, o.sandboxKey, coloured)).json.error.fields[0].path).toBe('description');
    const misplaced = { url: 'http://localhost:9/h2', events: EVENTS, enviroment: 'production' };
    expect((await api('POST', path, o.sandboxKey, misplaced)).json.error.fields[0].path).toBe('enviroment');
    expect((await api('GET', path, o.sandboxKey)).json.data.endpoints).toHaveLength(1);

    // JSON sent as another type (a form, text) is refused, and nothing is created.
    const app = createApp(ctx);
    for (const type of ['text/plain;charset=UTF-8', 'application/x-www-form-urlencoded']) {
      const r = await app.request(`http://localhost${path}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${o.sandboxKey}`, 'Content-Type': type },
        body: JSON.stringify({ url: 'http://localhost:9/h4', events: EVENTS }),
      });
      expect({ type, status: r.status }).toEqual({ type, status: 415 });
      expect((await r.json()).error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    }
    expect((await api('GET', path, o.sandboxKey)).json.data.endpoints).toHaveLength(1);
  });
});

describe('developer API: test events, history and redelivery', () => {
  test('history lists one row per attempt with filters and a cursor; redelivery keeps the id and body', async () => {
    ctx = await testContext({ extra: LOCALHOST_OK });
    let status = 500;
    rx = receiver(() => new Response(null, { status }));
    const o = await owner(ctx);
    const api = developerApi(ctx);
    const path = hooksPath(o.applicationId);
    const a = (await api('POST', path, o.sandboxKey, { url: `${rx.url}/a`, events: EVENTS })).json.data;
    const b = (await api('POST', path, o.sandboxKey, { url: `${rx.url}/b`, events: EVENTS })).json.data;

    const t1 = await api('POST', `${path}/${a.id}/test`, o.sandboxKey);
    expect(t1.status).toBe(202);
    expect(t1.json.data.eventId).toMatch(/^[0-9a-f-]{36}$/);
    await dispatchDue(ctx);
    ctx.clock.advance(60_000);
    status = 200;
    await dispatchDue(ctx);
    const t2 = (await api('POST', `${path}/${b.id}/test`, o.sandboxKey)).json.data.eventId;
    ctx.clock.advance(1000);
    await dispatchDue(ctx);

    const all = await api('GET', `${path}/deliveries/history`, o.sandboxKey);
    expect(all.status).toBe(200);
    const rows = all.json.data.deliveries;
    expect(rows).toHaveLength(3);
    expect(all.json.data.nextCursor).toBeNull();
    expect(rows[0]).toEqual({
      id: expect.any(String),
      eventId: t2,
      eventType: 'webhook.test',
      endpointId: b.id,
      attempt: 1,
      status: 'delivered',
      responseStatus: 200,
      error: null,
      durationMs: expect.any(Number),
      attemptedAt: expect.any(String),
      nextAttemptAt: null,
    });
    expect(rows[2]).toMatchObject({
      eventId: t1.json.data.eventId,
      attempt: 1,
      status: 'retrying',
      responseStatus: 500,
    });
    expect(rows[2].nextAttemptAt).toBe(rows[1].attemptedAt);

    const q = async (qs: string) =>
      (await api('GET', `${path}/deliveries/history?${qs}`, o.sandboxKey)).json.data;
    expect((await q(`endpointId=${b.id}`)).deliveries.map((r: { eventId: string }) => r.eventId)).toEqual([
      t2,
    ]);
    expect(
      (await q(`eventId=${t1.json.data.eventId}`)).deliveries.map((r: { attempt: number }) => r.attempt),
    ).toEqual([2, 1]);
    expect((await q('status=retrying')).deliveries).toHaveLength(1);

    const page1 = await q('limit=2');
    expect(page1.deliveries).toHaveLength(2);
    expect(page1.nextCursor).toEqual(expect.any(String));
    const page2 = await q(`limit=2&cursor=${page1.nextCursor}`);
    expect(page2.deliveries).toHaveLength(1);
    expect(page2.nextCursor).toBeNull();
    expect([...page1.deliveries, ...page2.deliveries].map((r: { id: string }) => r.id)).toEqual(
      rows.map((r: { id: string }) => r.id),
    );
    for (const bad of ['limit=0', 'limit=101', 'limit=abc', 'status=lost', 'cursor=%%%']) {
      const r = await api('GET', `${path}/deliveries/history?${bad}`, o.sandboxKey);
      expect({ bad, status: r.status }).toEqual({ bad, status: 400 });
    }

    // Redelivery: same id and body, a new attempt at 1.
    const before = rx.received.filter((r) => r.headers['service-event-id'] === t2);
    const re = await api('POST', `${path}/events/${t2}/redeliver`, o.sandboxKey);
    expect(re.status).toBe(202);
    expect(re.json.data).toEqual({ eventId: t2, deliveries: [{ id: expect.any(String), endpointId: b.id }] });
    await dispatchDue(ctx);
    const copies = rx.received.filter((r) => r.headers['service-event-id'] === t2);
    expect(copies).toHaveLength(before.length + 1);
    expect(new Set(copies.map((c) => c.body)).size).toBe(1);
    expect((await api('POST', `${path}/events/${crypto.randomUUID()}/redeliver`, o.sandboxKey)).status).toBe(
      404,
    );

    // Someone else's event cannot be redelivered through another application.
    const other = await owner(ctx);
    expect(
      (await api('POST', `${hooksPath(other.applicationId)}/events/${t2}/redeliver`, other.sandboxKey))
        .status,
    ).toBe(404);
  });

  test('the CLI lists attempts and redelivers an event', async () => {
    ctx = await testContext({ extra: LOCALHOST_OK });
    rx = receiver();
    const o = await owner(ctx);
    const api = developerApi(ctx);
    const path = hooksPath(o.applicationId);
    const ep = (await api('POST', path, o.sandboxKey, { url: rx.url, events: EVENTS })).json.data;
    const { eventId } = (await api('POST', `${path}/${ep.id}/test`, o.sandboxKey)).json.data;
    await dispatchDue(ctx);
    const config = join(ctx.dir, 'verity.toml');
    // The context's own database and keys (testToml would name a new database on PostgreSQL).
    const { database, keys } = ctx.config;
    writeFileSync(
      config,
      `[database]\npath = "${database.path}"\nurl = "${database.url}"\n[keys]\ndir = "${keys.dir}"\n${LOCALHOST_OK}\n`,
    );

    const listed = await cli(
      'webhooks',
      'deliveries',
      'list',
      '--config',
      config,
      '--app',
      o.applicationId,
      '--json',
    );
    expect(listed.code).toBe(0);
    expect(listed.json.deliveries).toHaveLength(1);
    expect(listed.json.deliveries[0]).toMatchObject({
      eventId,
      endpointId: ep.id,
      status: 'delivered',
      attempt: 1,
    });
    const human = await cli('webhooks', 'deliveries', 'list', '--config', config);
    expect(human.stdout).toContain(eventId);

    const re = await cli('webhooks', 'deliveries', 'redeliver', eventId, '--config', config, '--json');
    expect(re.code).toBe(0);
    expect(re.json).toMatchObject({ eventId, deliveries: [{ endpointId: ep.id }] });
    // The CLI queued it on the real clock; the test's clock catches up.
    ctx.clock.set(Date.now() + 1000);
    await dispatchDue(ctx);
    expect(rx.received.map((r) => r.headers['service-event-id'])).toEqual([eventId, eventId]);

    expect(
      (await cli('webhooks', 'deliveries', 'redeliver', crypto.randomUUID(), '--config', config)).code,
    ).toBe(1);
    expect((await cli('webhooks', 'deliveries', 'redeliver', '--config', config)).code).toBe(2);
    expect((await cli('webhooks', 'deliveries', 'list', '--status', 'nope', '--config', config)).code).toBe(
      1,
    );
  });
});
