import { afterEach, describe, expect, test } from 'bun:test';
import { createApp } from '../../src/app.ts';
import { ApiError, NotFoundError, OAuthError, ValidationError } from '../../src/errors.ts';
import { type TestContext, testContext } from '../helpers/context.ts';
import { keptLog } from '../helpers/log.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SECRET = 'SECRET-DETAIL /var/lib/verity/private.jwk';

let ctx: TestContext | undefined;
let server: TestServer | undefined;
afterEach(async () => {
  ctx?.cleanup();
  ctx = undefined;
  await server?.stop();
  server = undefined;
});

/** The real app with a few extra routes that raise each kind of error a domain function can raise. */
async function appWithFailingRoutes() {
  ctx = await testContext();
  const { log, lines: logged } = keptLog();
  ctx.log = log;
  const app = createApp(ctx);
  app.get('/test/unexpected', () => {
    throw new Error(SECRET);
  });
  app.get('/test/type-error', () => {
    const missing = undefined as unknown as { deep: { field: string } };
    return new Response(missing.deep.field);
  });
  app.get('/test/rejected', async () => Promise.reject(new RangeError(SECRET)));
  app.get('/test/thrown-string', () => {
    throw SECRET;
  });
  app.get('/test/api-error', () => {
    throw new ApiError('RATE_LIMIT_EXCEEDED', 'Too many requests.', 429, undefined, { 'Retry-After': '7' });
  });
  app.get('/test/validation', () => {
    throw new ValidationError('The request is invalid.', [{ path: 'url', message: 'must use https' }]);
  });
  app.get('/test/not-found', () => {
    throw new NotFoundError('No such application.');
  });
  app.get('/test/oauth', () => {
    throw new OAuthError('insufficient_scope', 'The token lacks a scope.', 403, {
      'WWW-Authenticate': 'Bearer error="insufficient_scope"',
    });
  });
  return { app, logged };
}

describe('error responses', () => {
  test('an unexpected error is a 500 with no detail, and is logged with its request id', async () => {
    const { app, logged } = await appWithFailingRoutes();
    for (const path of ['/test/unexpected', '/test/type-error', '/test/rejected', '/test/thrown-string']) {
      const res = await app.request(path);
      expect(res.status).toBe(500);
      const id = res.headers.get('x-request-id')!;
      expect(id).toMatch(UUID);
      const text = await res.text();
      expect(JSON.parse(text)).toEqual({
        error: { code: 'INTERNAL', message: 'An internal error occurred.', requestId: id },
      });
      expect(text).not.toContain('SECRET');
      expect(text).not.toContain('/var/lib');
      expect(text).not.toMatch(/at .*\.ts:\d+/);
      expect(text).not.toContain('TypeError');
      expect(res.headers.get('content-type')).toContain('application/json');
      expect(logged.some((l) => l.level === 'error' && l.requestId === id)).toBe(true);
    }
  });

  test('typed errors map to the API shape { error: { code, message, requestId } }', async () => {
    const { app } = await appWithFailingRoutes();
    const limited = await app.request('/test/api-error');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('7');
    expect(await limited.json()).toEqual({
      error: {
        code: 'RATE_LIMIT_EXCEEDED',
        message: 'Too many requests.',
        requestId: limited.headers.get('x-request-id'),
      },
    });

    const invalid = await app.request('/test/validation');
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toEqual({
      error: {
        code: 'VALIDATION_FAILED',
        message: 'The request is invalid.',
        requestId: invalid.headers.get('x-request-id'),
        fields: [{ path: 'url', message: 'must use https' }],
      },
    });

    const missing = await app.request('/test/not-found');
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.code).toBe('NOT_FOUND');

    const scope = await app.request('/test/oauth');
    expect(scope.status).toBe(403);
    expect(scope.headers.get('www-authenticate')).toBe('Bearer error="insufficient_scope"');
    expect((await scope.json()).error).toMatchObject({ code: 'insufficient_scope' });
  });

  test('an unknown path is 404 NOT_FOUND in the API shape, with the request id in body and header', async () => {
    const { app } = await appWithFailingRoutes();
    for (const path of ['/nope', '/v1/nope', '/v2/oauth/token', '/.well-known/nope']) {
      const res = await app.request(path);
      expect(res.status).toBe(404);
      const id = res.headers.get('x-request-id')!;
      expect(id).toMatch(UUID);
      expect(await res.json()).toEqual({
        error: { code: 'NOT_FOUND', message: 'No such resource.', requestId: id },
      });
    }
  });

  test('the token endpoint answers in its own shape { error, error_description }, never cached', async () => {
    server = await startTestServer();
    const res = await fetch(`${server.url}/v1/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('x-request-id')).toMatch(UUID);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = await res.json();
    expect(Object.keys(body).sort()).toEqual(['error', 'error_description']);
    expect(body.error).toBe('invalid_request');
    expect(typeof body.error_description).toBe('string');
  });

  test('a broken database on a real server gives 500 without detail, the log the cause, and /readyz reports it', async () => {
    const { log, lines: logged } = keptLog<{ msg: string; requestId?: string; error?: string }>('error');
    server = await startTestServer({ log });
    server.ctx.db.sql.exec('ALTER TABLE rate_limit_buckets RENAME TO rate_limit_buckets_gone');
    const res = await fetch(`${server.url}/v1/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=authorization_code&code=x',
    });
    expect(res.status).toBe(500);
    expect(res.headers.get('x-request-id')).toMatch(UUID);
    const text = await res.text();
    expect(text).not.toContain('rate_limit_buckets');
    expect(text).not.toMatch(/no such table|SQLITE|sqlite/i);
    expect(text).not.toMatch(/at .*\.ts:\d+/);
    // The token endpoint, served ahead of hono, logs the cause under the request id it answered with.
    expect(logged).toEqual([
      expect.objectContaining({ msg: 'unhandled error', requestId: res.headers.get('x-request-id') }),
    ]);
    expect(logged[0]!.error).toMatch(/rate_limit_buckets/);

    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ status: 'unavailable', problems: ['database not writable'] });
  });
});
