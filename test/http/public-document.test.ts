import { afterEach, beforeEach, expect, test } from 'bun:test';
import { publicDocument } from '../../src/http/public-document.ts';
import { type TestContext, testContext } from '../helpers/context.ts';

// Discovery and the JWKS are served by publicDocument ahead of hono: a body at hand is answered without
// a promise, one still being built with one. Either way a failure must be the API's 500, with its
// request id, logged and counted, and never the failure's own text.

let ctx: TestContext;
const logged: unknown[] = [];
beforeEach(async () => {
  ctx = await testContext();
  logged.length = 0;
  ctx.log = { ...ctx.log, error: (_msg: string, fields?: unknown) => void logged.push(fields) };
});
afterEach(() => ctx.cleanup());

const ROUTE = '/.well-known/test-document';
const get = (body: () => string | Promise<string>) =>
  publicDocument(
    ctx,
    ROUTE,
    body,
    'public, max-age=60',
  )(new Request(`http://verity.test${ROUTE}`), undefined);

test('a body at hand is answered at once, with its headers, and counted', async () => {
  const res = get(() => '{"a":1}');
  expect(res).toBeInstanceOf(Response);
  const answered = await res;
  expect(answered.status).toBe(200);
  expect(await answered.text()).toBe('{"a":1}');
  expect(answered.headers.get('cache-control')).toBe('public, max-age=60');
  expect(answered.headers.get('access-control-allow-origin')).toBe('*');
  expect(answered.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  expect(ctx.metrics.requests.get({ route: ROUTE, method: 'GET', status: '200' })).toBe(1);
});

test.each([
  [
    'throws',
    () => {
      throw new Error('secret detail');
    },
  ],
  ['rejects', () => Promise.reject(new Error('secret detail'))],
])('a body that %s is the API 500 with the request id, logged and counted', async (_, body) => {
  const res = await get(body);
  expect(res.status).toBe(500);
  const id = res.headers.get('x-request-id')!;
  const text = await res.text();
  expect(JSON.parse(text)).toEqual({
    error: { code: 'INTERNAL', message: 'An internal error occurred.', requestId: id },
  });
  expect(text).not.toContain('secret detail');
  expect(logged).toEqual([expect.objectContaining({ requestId: id })]);
  expect(ctx.metrics.requests.get({ route: ROUTE, method: 'GET', status: '500' })).toBe(1);
});
