import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { streamBody } from '../helpers/stream-body.ts';

/**
 * The body-limit table, surface by surface, against a real server: the limit holds for a declared
 * length (answered before any byte of the body is sent) and for a chunked body, and the 413 comes in
 * the surface's own error shape.
 */

const KiB = 1024;
const MiB = 1024 * KiB;
const FORM = 'application/x-www-form-urlencoded';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.stop());

const url = (path: string) => `${s.url}${path}`;
const post = (path: string, bytes: number, declared?: number, contentType = FORM) =>
  streamBody(url(path), { bytes, contentType, ...(declared === undefined ? {} : { declared }) });

describe('413 shapes', () => {
  test('token endpoint: invalid_request in its own shape, no-store', async () => {
    for (const answer of [await post('/v1/oauth/token', MiB), await post('/v1/oauth/token', 0, 65 * KiB)]) {
      expect(answer.status).toBe(413);
      expect(JSON.parse(answer.body)).toEqual({
        error: 'invalid_request',
        error_description: 'The request body is too large.',
      });
      expect(answer.headers['cache-control']).toBe('no-store');
    }
  });

  test('authorize by POST: the OAuth shape too', async () => {
    const answer = await post('/v1/oauth/authorize', 0, 193 * KiB);
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body).error).toBe('invalid_request');
  });

  test('developer API: PAYLOAD_TOO_LARGE with the request id', async () => {
    const path = '/v1/developer/applications/app_x/webhooks';
    for (const answer of [
      await post(path, MiB, undefined, 'application/json'),
      await post(path, 0, 257 * KiB),
    ]) {
      expect(answer.status).toBe(413);
      const body = JSON.parse(answer.body);
      expect(body.error.code).toBe('PAYLOAD_TOO_LARGE');
      expect(body.error.requestId).toBe(answer.headers['x-request-id']!);
    }
  });

  test('any other API route: PAYLOAD_TOO_LARGE past 1 MiB', async () => {
    const answer = await post('/v1/userinfo', 2 * MiB);
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body).error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  test('identity and portal pages: an HTML page in their layout, with the page headers', async () => {
    for (const path of ['/identity/authorize/ar_x/signin', '/identity/account/signin', '/developer/signup']) {
      for (const answer of [await post(path, MiB), await post(path, 0, 65 * KiB)]) {
        expect({ path, status: answer.status }).toEqual({ path, status: 413 });
        expect(answer.headers['content-type']).toStartWith('text/html');
        expect(answer.body).toContain('The request body is too large.');
        expect(answer.body).toContain(answer.headers['x-request-id']!);
        expect(answer.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      }
    }
  });
});

describe('limits by surface', () => {
  /** A body at the limit gets past it (to the next refusal); one byte more is 413. */
  const atLimit = async (path: string, limit: number, contentType = FORM) => {
    const within = await fetch(url(path), {
      method: 'POST',
      headers: { 'content-type': contentType },
      body: 'a'.repeat(limit),
    });
    expect({ path, within: within.status }).not.toEqual({ path, within: 413 });
    const over = await fetch(url(path), {
      method: 'POST',
      headers: { 'content-type': contentType },
      body: 'a'.repeat(limit + 1),
    });
    expect({ path, over: over.status }).toEqual({ path, over: 413 });
  };

  test('OAuth 64 KiB', () => atLimit('/v1/oauth/token', 64 * KiB));
  test('pages 64 KiB', () => atLimit('/developer/signup', 64 * KiB));
  test('authorize and logout by POST, which may carry an ID token with a photo: 192 KiB', async () => {
    await atLimit('/v1/oauth/authorize', 192 * KiB);
    await atLimit('/identity/logout', 192 * KiB);
  });
  test('developer API 256 KiB', () =>
    atLimit('/v1/developer/applications/app_x/webhooks', 256 * KiB, 'application/json'));
  test('anything else 1 MiB', () => atLimit('/v1/userinfo', MiB));
  // 8 MiB only for a request waiting for camera frames in this browser (identity/production-flow.test.ts).
  test('the face step of any other request: 64 KiB', () =>
    atLimit('/identity/authorize/ar_x/face', 64 * KiB));
});
