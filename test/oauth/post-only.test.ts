import { afterAll, beforeAll, expect, test } from 'bun:test';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.stop());

test('another method at the token and revocation endpoints: 405 in their shape, with Allow: POST', async () => {
  for (const path of ['/v1/oauth/token', '/v1/oauth/revoke'])
    for (const method of ['GET', 'PUT', 'PATCH', 'DELETE']) {
      const res = await fetch(`${s.url}${path}`, { method });
      expect({ path, method, status: res.status, allow: res.headers.get('allow') }).toEqual({
        path,
        method,
        status: 405,
        allow: 'POST',
      });
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(await res.json()).toEqual({
        error: 'invalid_request',
        error_description: 'This endpoint accepts POST only.',
      });
    }
  // POST itself is still the endpoint.
  const post = await fetch(`${s.url}/v1/oauth/token`, { method: 'POST' });
  expect([post.status, (await post.json()).error]).toEqual([400, 'invalid_request']);
});
