import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { getApplication } from '../../src/apps/application.store.ts';
import { type TestContext, testContext } from '../helpers/context.ts';
import { inProcess } from '../oauth/fixtures.ts';
import { type Owner, owner } from '../webhooks/fixtures.ts';

let ctx: TestContext;
let request: ReturnType<typeof inProcess>;
let o: Owner;
beforeEach(async () => {
  ctx = await testContext();
  request = inProcess(ctx);
  o = await owner(ctx);
});
afterEach(() => ctx.cleanup());

const get = (key: string, id = o.applicationId) =>
  request(`/v1/developer/applications/${id}`, { headers: { Authorization: `Bearer ${key}` } });
const put = (key: string, body: unknown, id = o.applicationId) =>
  request(`/v1/developer/applications/${id}/web-origins`, {
    method: 'PUT',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
const originsOf = (environment: 'sandbox' | 'production') =>
  getApplication(ctx.db, o.applicationId).environments.find((e) => e.environment === environment)!.webOrigins;

describe('developer API: applications', () => {
  test("GET shows the key's environment of an owned application, never a secret", async () => {
    for (const [key, environment] of [
      [o.sandboxKey, 'sandbox'],
      [o.productionKey, 'production'],
    ] as const) {
      const res = await get(key);
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      const { data } = (await res.json()) as { data: Record<string, unknown> };
      expect(data).toMatchObject({
        applicationId: o.applicationId,
        environment,
        webOrigins: [],
        postLogoutRedirectUris: [],
        minimumAcr: 'none',
        // What the client must accept its ID tokens signed with (RFC 7591 name).
        idTokenSignedResponseAlg: 'RS256',
      });
      expect(data.clientId).toMatch(environment === 'sandbox' ? /^cid_test_/ : /^cid_live_/);
      expect(JSON.stringify(data)).not.toContain('cs_');
    }
  });

  test("another developer's application, or none, is the same 404; no key is 401", async () => {
    const other = await owner(ctx);
    expect((await get(other.sandboxKey)).status).toBe(404);
    expect((await put(other.sandboxKey, { webOrigins: ['https://x.example'] })).status).toBe(404);
    expect((await get(o.sandboxKey, 'app_nothing')).status).toBe(404);
    const anonymous = await request(`/v1/developer/applications/${o.applicationId}`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('cache-control')).toBe('no-store');
    expect(originsOf('sandbox')).toEqual([]);
  });

  test('PUT web-origins replaces the sandbox set, by the registration rules', async () => {
    const res = await put(o.sandboxKey, { webOrigins: ['http://localhost:5173', 'https://SPA.example:443'] });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: { webOrigins: string[] } }).data.webOrigins).toEqual([
      'http://localhost:5173',
      'https://spa.example',
    ]);
    const bad = await put(o.sandboxKey, { webOrigins: ['https://*.spa.example'] });
    expect(bad.status).toBe(400);
    const body = (await bad.json()) as { error: { code: string; fields: { path: string }[] } };
    expect(body.error.code).toBe('VALIDATION_FAILED');
    expect(body.error.fields[0]!.path).toBe('webOrigins[0]');
    expect((await put(o.sandboxKey, {})).status).toBe(400);
    expect(originsOf('sandbox')).toEqual(['http://localhost:5173', 'https://spa.example']);
  });

  test('a production key cannot change production web origins: that goes through the portal', async () => {
    const res = await put(o.productionKey, { webOrigins: ['https://spa.example'] });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe(
      'PRODUCTION_CHANGE_IN_PORTAL',
    );
    expect(originsOf('production')).toEqual([]);
    expect(originsOf('sandbox')).toEqual([]);
  });
});
