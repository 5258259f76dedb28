import { afterEach, expect, test } from 'bun:test';
import { createApp } from '../../src/app.ts';
import { invalidApiKey } from '../../src/auth/developer-key.ts';
import { apiKeyStands, authenticateApiKey, revokeApiKey } from '../../src/developer/api-key.store.ts';
import { setDeveloperStatus } from '../../src/developer/developer.store.ts';
import { createEndpoint } from '../../src/webhooks/endpoints.ts';
import { type TestContext, testContext } from '../helpers/context.ts';
import { heldBody } from '../helpers/stream-body.ts';
import { developerApi, hooksPath, LOCALHOST_OK, owner } from '../webhooks/fixtures.ts';

/**
 * A key is accepted when a request arrives, before its body; a body may take long to arrive. A key
 * revoked (or its developer disabled) meanwhile must change nothing: the key is asked again once the
 * body is in, and again where a write commits after a wait of its own.
 */
let ctx: TestContext;
afterEach(() => ctx?.cleanup());

/** Sends the head of a request now and returns a function that sends its body and awaits the answer. */
function parked(ctx: TestContext, method: string, path: string, key: string, body: unknown) {
  const held = heldBody(JSON.stringify(body));
  const answer = createApp(ctx).request(
    `http://localhost${path}`,
    {
      method,
      headers: {
        Authorization: `Bearer ${key}`,
        'Content-Type': 'application/json',
        'Content-Length': held.length,
      },
      ...held.init,
    },
    { ip: '127.0.0.1' },
  );
  return async () => {
    // Let the request reach the handler (key already accepted), then send the body.
    await Bun.sleep(50);
    held.release();
    const res = await answer;
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : undefined };
  };
}

async function productionEndpoint(ctx: TestContext) {
  const o = await owner(ctx);
  const api = developerApi(ctx);
  const created = await api('POST', hooksPath(o.applicationId), o.productionKey, {
    url: 'https://93.184.215.14/hooks/verity',
    events: ['consent.granted'],
  });
  expect(created.status).toBe(201);
  return { o, endpointId: created.json.data.id as string };
}

const secretsOf = (ctx: TestContext, endpointId: string) =>
  ctx.db.sql
    .prepare<{ n: number }>('SELECT count(*) AS n FROM webhook_secrets WHERE endpoint_id = ?')
    .get(endpointId)!.n;

test('a rotate-secret request whose body arrives after the key was revoked is refused', async () => {
  ctx = await testContext({ extra: LOCALHOST_OK });
  const { o, endpointId } = await productionEndpoint(ctx);
  const keyId = ctx.db.sql
    .prepare<{ id: string }>(
      "SELECT id FROM developer_api_keys WHERE developer_id = ? AND environment = 'production'",
    )
    .get(o.developerId)!.id;

  const finish = parked(
    ctx,
    'POST',
    `${hooksPath(o.applicationId)}/${endpointId}/rotate-secret`,
    o.productionKey,
    {
      expireCurrentInSeconds: 0,
    },
  );
  await Bun.sleep(20);
  // The owner learns the key leaked and revokes it.
  revokeApiKey(ctx.db, ctx.clock, keyId);
  const r = await finish();

  expect(r.json?.data?.secret).toBeUndefined();
  expect(r.status).toBe(401);
  expect(secretsOf(ctx, endpointId)).toBe(1);
});

test('a create-endpoint request whose body arrives after the developer was disabled is refused', async () => {
  ctx = await testContext({ extra: LOCALHOST_OK });
  const { o } = await productionEndpoint(ctx);
  const finish = parked(ctx, 'POST', hooksPath(o.applicationId), o.productionKey, {
    url: 'https://93.184.215.15/attacker',
    events: ['consent.granted', 'consent.revoked', 'oauth.authorization.completed'],
  });
  await Bun.sleep(20);
  setDeveloperStatus(ctx.db, ctx.clock, o.developerId, 'disabled');
  const r = await finish();

  expect(r.status).toBe(401);
  const n = ctx.db.sql
    .prepare<{ n: number }>('SELECT count(*) AS n FROM webhook_endpoints WHERE application_id = ?')
    .get(o.applicationId)!.n;
  expect(n).toBe(1);
});

test('an endpoint whose address is still being checked when its key is revoked is not added', async () => {
  ctx = await testContext({ extra: LOCALHOST_OK });
  const o = await owner(ctx);
  const key = (await authenticateApiKey(ctx.db, ctx.clock, o.sandboxKey))!;
  // As the developer API acts (api/developer-api.ts `dev`): while the key stands.
  const principal = {
    ...key,
    assertActing: () => {
      if (!apiKeyStands(ctx.db, key.keyId)) throw invalidApiKey();
    },
  };
  // The call runs up to the host's lookup, then waits: the key is revoked during the wait.
  const adding = createEndpoint(ctx, principal, o.applicationId, {
    url: 'http://localhost:9/hooks',
    events: ['consent.granted'],
  });
  revokeApiKey(ctx.db, ctx.clock, key.keyId);
  await expect(adding).rejects.toMatchObject({ code: 'INVALID_API_KEY', status: 401 });
  const n = ctx.db.sql
    .prepare<{ n: number }>('SELECT count(*) AS n FROM webhook_endpoints WHERE application_id = ?')
    .get(o.applicationId)!.n;
  expect(n).toBe(0);
});
