import { afterEach, describe, expect, test } from 'bun:test';
import { randomId } from '../../src/crypto/tokens.ts';
import { sealedSecrets } from '../../src/keys/instance-secrets.ts';
import { jsonLogger } from '../../src/log.ts';
import { unix } from '../../src/platform/clock.ts';
import { listAllAttempts } from '../../src/webhooks/deliveries.ts';
import { dispatchDue } from '../../src/webhooks/dispatcher.ts';
import { createEndpointStore } from '../../src/webhooks/endpoint.store.ts';
import { enqueueEvent } from '../../src/webhooks/outbox.store.ts';
import { type TestContext, testContext } from '../helpers/context.ts';
import { developerApi, hooksPath, LOCALHOST_OK, owner, type Receiver, receiver } from './fixtures.ts';

let ctx: TestContext;
let rx: Receiver | undefined;
afterEach(async () => {
  await rx?.stop();
  rx = undefined;
  ctx?.cleanup();
});

const REFUSED_IN_PRODUCTION = [
  'https://127.0.0.1/hook',
  'https://127.8.9.10/hook',
  'https://localhost/hook',
  'https://[::1]/hook',
  'https://10.1.2.3/hook',
  'https://172.16.5.4/hook',
  'https://192.168.1.1/hook',
  'https://169.254.169.254/latest/meta-data/',
  'https://[fd00:ec2::254]/hook',
  'https://[fe80::1]/hook',
  'https://[::ffff:127.0.0.1]/hook',
  'https://[::ffff:10.0.0.1]/hook',
  'https://100.100.100.200/hook',
  'https://0.0.0.0/hook',
  // Other spellings of 127.0.0.1 that URL parsing normalises.
  'https://2130706433/hook',
  'https://0x7f.1/hook',
  'https://0x7f000001/hook',
  'https://0177.0.0.1/hook',
  'https://127.1/hook',
  'https://0/hook',
  'https://[::]/hook',
  'https://[::ffff:7f00:1]/hook',
  'https://[0:0:0:0:0:ffff:127.0.0.1]/hook',
  'https://[::ffff:a9fe:a9fe]/hook',
  // IPv4-compatible (deprecated), NAT64, 6to4 and Teredo forms that carry an IPv4 address.
  'https://[::127.0.0.1]/hook',
  'https://[64:ff9b::a9fe:a9fe]/hook',
  'https://[2002:7f00:1::]/hook',
  'https://[2001::1]/hook',
  // Names that are this machine whatever a resolver answers (RFC 6761), in any spelling.
  'https://localhost./hook',
  'https://LOCALHOST/hook',
  'https://%6c%6fcalhost/hook',
  'https://api.localhost/hook',
  'https://api.localhost./hook',
  // Plain http is never allowed in production, not even for localhost.
  'http://localhost:9999/hook',
  'http://93.184.215.14/hook',
];

describe('webhook targets', () => {
  test('production refuses loopback, private, link-local, unique-local and metadata targets at registration', async () => {
    ctx = await testContext({ extra: LOCALHOST_OK });
    const o = await owner(ctx);
    const lines: string[] = [];
    ctx.log = jsonLogger('debug', (l) => lines.push(l));
    const api = developerApi(ctx);
    for (const url of REFUSED_IN_PRODUCTION) {
      const r = await api('POST', hooksPath(o.applicationId), o.productionKey, {
        url,
        events: ['consent.granted'],
        environment: 'production',
      });
      expect({ url, status: r.status }).toEqual({ url, status: 400 });
      expect(r.json.error.code).toBe('VALIDATION_FAILED');
      expect(r.json.error.fields[0].path).toBe('url');
      // Where it points is not the developer's business; the URL's own shape is.
      if (url.startsWith('https:')) expect(r.json.error.fields[0].message).toBe('target not allowed');
    }
    const refused = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'webhook target refused');
    expect(refused).toHaveLength(REFUSED_IN_PRODUCTION.filter((u) => u.startsWith('https:')).length);
    for (const r of refused) expect(r.detail).toMatch(/must not point at a \w+ address/);
    const ok = await api('POST', hooksPath(o.applicationId), o.productionKey, {
      url: 'https://93.184.215.14/hooks/verity',
      events: ['consent.granted'],
      environment: 'production',
    });
    expect(ok.status).toBe(201);
    expect(ok.json.data).toMatchObject({
      url: 'https://93.184.215.14/hooks/verity',
      environment: 'production',
    });
  });

  test('sandbox takes http://localhost only when the config allows it, and never private addresses', async () => {
    ctx = await testContext();
    const o = await owner(ctx);
    const api = developerApi(ctx);
    const create = (url: string) =>
      api('POST', hooksPath(o.applicationId), o.sandboxKey, { url, events: ['consent.granted'] });
    expect((await create('http://localhost:8123/hook')).status).toBe(400);
    expect((await create('https://localhost:8123/hook')).status).toBe(400);
    ctx.cleanup();

    ctx = await testContext({ extra: LOCALHOST_OK });
    const o2 = await owner(ctx);
    const api2 = developerApi(ctx);
    const create2 = (url: string) =>
      api2('POST', hooksPath(o2.applicationId), o2.sandboxKey, { url, events: ['consent.granted'] });
    expect((await create2('http://localhost:8123/hook')).status).toBe(201);
    expect((await create2('http://127.0.0.1:8123/hook')).status).toBe(201);
    expect((await create2('http://[::1]:8123/hook')).status).toBe(201);
    for (const url of [
      'http://10.0.0.1/hook',
      'https://192.168.0.10/hook',
      'https://169.254.169.254/',
      'ftp://localhost/x',
    ])
      expect({ url, status: (await create2(url)).status }).toEqual({ url, status: 400 });
    // The allowance is for sandbox only.
    const prod = await api2('POST', hooksPath(o2.applicationId), o2.productionKey, {
      url: 'http://localhost:8123/hook',
      events: ['consent.granted'],
    });
    expect(prod.status).toBe(400);
  });

  test('URLs with credentials or fragments are refused', async () => {
    ctx = await testContext();
    const o = await owner(ctx);
    const api = developerApi(ctx);
    for (const url of ['https://user:pw@93.184.215.14/hook', 'https://93.184.215.14/hook#x', 'not a url']) {
      const r = await api('POST', hooksPath(o.applicationId), o.productionKey, {
        url,
        events: ['consent.granted'],
      });
      expect(r.status).toBe(400);
    }
  });

  test('production refuses a loopback target again at connection time, so a name that moved is never called', async () => {
    ctx = await testContext({ extra: LOCALHOST_OK });
    const lines: string[] = [];
    ctx.log = jsonLogger('debug', (l) => lines.push(l));
    rx = receiver();
    const o = await owner(ctx);
    // Rows as if registered while the names pointed at public addresses: registration passed, and by
    // delivery time they resolve (or are) loopback. "localhost" goes through the resolver, the literal
    // does not, so both paths of the connection-time check are exercised.
    const store = createEndpointStore(ctx.db);
    const now = unix(ctx.clock);
    for (const url of [`https://localhost:${rx.port}/hook`, `https://127.0.0.1:${rx.port}/hook`]) {
      const id = randomId('we_');
      store.insert({
        id,
        applicationId: o.applicationId,
        environment: 'production',
        url,
        events: ['consent.granted'],
        description: '',
        enabled: true,
        createdAt: now,
        updatedAt: now,
      });
      const secretId = randomId('whs_');
      store.insertSecret({
        id: secretId,
        endpoint_id: id,
        ciphertext: await sealedSecrets(ctx.config, 'webhook secrets').seal(secretId, 'whsec_test'),
        created_at: now,
        expires_at: null,
      });
    }
    const ev = ctx.db.sql.transaction(() =>
      enqueueEvent(ctx, {
        type: 'consent.granted',
        applicationId: o.applicationId,
        environment: 'production',
        data: {
          consentId: 'cns_1',
          applicationId: o.applicationId,
          environment: 'production',
          sub: 's',
          scopes: ['openid'],
          purpose: 'p',
          at: ctx.clock.now().toISOString(),
        },
      }),
    );
    const outcomes = await dispatchDue(ctx);
    expect(outcomes).toHaveLength(2);
    for (const out of outcomes) {
      expect(out.status).toBe('retrying');
      expect(out.responseStatus).toBeNull();
      expect(out.error).toBe('target not allowed');
    }
    // Why, with the address, is in the server log only.
    const details = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'webhook target failed');
    expect(details).toHaveLength(2);
    for (const d of details) expect(d.detail).toMatch(/loopback/);
    expect(JSON.stringify(listAllAttempts(ctx, { eventId: ev.id }))).not.toMatch(/127\.0\.0\.1|loopback/);
    expect(rx.received).toHaveLength(0);
    expect(listAllAttempts(ctx, { eventId: ev.id }).deliveries).toHaveLength(2);
  });
});
