import { afterAll, beforeAll, expect, test } from 'bun:test';
import { connect } from 'node:net';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * A Host header the URL parser refuses ("x@y", "a b") must not move the path a request is routed by:
 * under Bun such a request reached the app with a relative URL, read from the wrong offset, so
 * `/v1/metrics` was served as `/metrics` past a proxy that lets only `/v1/…` through.
 */

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.stop());

/** The status line and body of one raw HTTP/1.1 request. */
function raw(request: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(s.port, '127.0.0.1');
    let text = '';
    socket.on('data', (d) => {
      text += d.toString('latin1');
    });
    socket.on('error', reject);
    socket.on('close', () => resolve({ status: Number(text.split(' ')[1]), text }));
    socket.write(request);
  });
}

test('a Host the URL parser refuses is answered 400, whatever the path', async () => {
  for (const [path, host] of [
    ['/v1/metrics', 'x@y'],
    ['/api/developer/signup', 'a b'],
    ['/v1/.well-known/jwks.json', 'a/b'],
  ]) {
    const r = await raw(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
    expect({ path, status: r.status }).toEqual({ path, status: 400 });
    expect(r.text).not.toContain('verity_http_requests_total');
  }
  // An ordinary request on the same listener is served.
  const ok = await raw(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${s.port}\r\nConnection: close\r\n\r\n`);
  expect(ok.status).toBe(200);
});
