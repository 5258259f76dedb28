import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createApp } from '../../src/app.ts';
import { type TestContext, testContext } from '../helpers/context.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await testContext();
});
afterAll(() => ctx.cleanup());

test('every response gets a fresh request id; a client-supplied one is never adopted', async () => {
  const app = createApp(ctx);
  const res = await app.request('/healthz', { headers: { 'X-Request-Id': 'chosen-by-client' } });
  const id = res.headers.get('X-Request-Id');
  expect(id).toMatch(/^[0-9a-f-]{36}$/);
  expect(id).not.toBe('chosen-by-client');
  const notFound = await app.request('/nope', { headers: { 'X-Request-Id': 'chosen-by-client' } });
  const body = (await notFound.json()) as { error: { requestId: string } };
  expect(body.error.requestId).toBe(notFound.headers.get('X-Request-Id')!);
  expect(body.error.requestId).not.toBe(id!);
});
