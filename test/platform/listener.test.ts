import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { mkdirSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { spawn } from 'bun';

setDefaultTimeout(60_000);

/**
 * The listener under each runtime, driven over raw sockets: a connection that stays silent (before a
 * request, within its head or within its body) is closed, and requests a browser cannot send are
 * framed alike. Deno's own `Deno.serve` kept such connections open for ever and allowed 64 KiB of
 * headers.
 */

const root = join(import.meta.dir, '../..');
const out = join(root, '.tmp', `listener-${crypto.randomUUID()}`);
const probe = join(import.meta.dir, 'listener-probe.ts');

const commands = {
  bun: () => [process.execPath, probe],
  node: () => ['node', join(out, 'probe.mjs')],
  deno: () => [join(root, 'node_modules/.bin/deno'), 'run', '-A', probe],
};

beforeAll(() => {
  mkdirSync(out, { recursive: true });
  const external = ['bun:sqlite', 'drizzle-orm/bun-sqlite', 'better-sqlite3', 'drizzle-orm/better-sqlite3'];
  const build = Bun.spawnSync(
    [
      process.execPath,
      'build',
      probe,
      '--target',
      'node',
      ...external.flatMap((e) => ['--external', e]),
    ].concat(['--outfile', join(out, 'probe.mjs')]),
    { cwd: root, stdout: 'pipe', stderr: 'pipe' },
  );
  if (build.exitCode !== 0) throw new Error(`bundling the probe failed: ${build.stderr}`);
});
afterAll(() => rmSync(out, { recursive: true, force: true }));

interface Answer {
  status?: number;
  text: string;
  /** Seconds from connecting until the server closed the connection. */
  closedAfter: number;
}

/** Sends `request`, reads nothing for `stallMs`, then reads until the server closes (at most 20 s more). */
function stalledReader(port: number, request: string, stallMs: number): Promise<{ bytes: number }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    socket.pause();
    let bytes = 0;
    socket.on('error', () => resolve({ bytes }));
    socket.write(request);
    setTimeout(() => {
      socket.on('data', (d) => {
        bytes += d.length;
      });
      socket.resume();
      const t = setTimeout(() => {
        socket.destroy();
        resolve({ bytes });
      }, 20_000);
      socket.on('close', () => {
        clearTimeout(t);
        resolve({ bytes });
      });
    }, stallMs);
    void reject;
  });
}

/** Writes `request` on a fresh connection and waits (up to 25 s) for the server to close it. */
function exchange(port: number, request: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = connect(port, '127.0.0.1');
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text, closedAfter: Number.POSITIVE_INFINITY });
    }, 25_000);
    socket.on('data', (d) => {
      text += d.toString('latin1');
    });
    socket.on('error', reject);
    socket.on('close', () => {
      clearTimeout(timer);
      const status = /^HTTP\/1\.1 (\d{3})/.exec(text)?.[1];
      resolve({
        status: status ? Number(status) : undefined,
        text,
        closedAfter: (performance.now() - started) / 1000,
      });
    });
    if (request) socket.write(request);
  });
}

for (const [name, command] of Object.entries(commands)) {
  describe(`under ${name}`, () => {
    let child: ReturnType<typeof spawn>;
    let port: number;
    beforeAll(async () => {
      child = spawn(command(), { cwd: root, stdout: 'pipe', stderr: 'inherit' });
      const reader = (child.stdout as ReadableStream<Uint8Array>).getReader();
      const { value } = await reader.read();
      port = JSON.parse(new TextDecoder().decode(value)).port;
    });
    afterAll(() => child?.kill());

    // One test, its connections side by side: each waits on the idle timeout, Bun's for at least 10 s.
    test('the idle timeout: a silent connection is closed, a slow answer is not, an unread one is', async () => {
      const [nothing, halfHead, halfBody, slow, pipelined, unread] = await Promise.all([
        exchange(port, ''),
        exchange(port, 'GET / HTTP/1.1\r\nHost: a\r\n'),
        exchange(port, 'POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 100\r\n\r\nabc'),
        // The app works on its answer for longer than the idle timeout.
        exchange(port, 'POST /slow HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc'),
        exchange(
          port,
          'GET /quick HTTP/1.1\r\nHost: a\r\n\r\nGET /slow HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n',
        ),
        // Not read for six idle timeouts (Bun checks its own every few seconds).
        stalledReader(port, 'GET /big HTTP/1.1\r\nHost: a\r\n\r\n', 6000),
      ]);
      // Closed before a request, within its head, within its body.
      for (const a of [nothing, halfHead, halfBody]) expect(a.closedAfter).toBeLessThan(20);
      expect(halfBody.text).not.toContain('POST');
      expect(slow.text).toEndWith('POST http://a/slow 3');
      expect(pipelined.text).toContain('GET http://a/quick 0');
      expect(pipelined.text).toEndWith('GET http://a/slow 0');
      expect(unread.bytes).toBeLessThan(32 * 1024 * 1024);
    });

    test('headers past 16 KiB are refused with 431', async () => {
      const a = await exchange(
        port,
        `GET / HTTP/1.1\r\nHost: a\r\nX: ${'a'.repeat(17 * 1024)}\r\nConnection: close\r\n\r\n`,
      );
      expect(a.status).toBe(431);
    });

    test('a request without Host is refused; of two Hosts, the first is the one served', async () => {
      expect((await exchange(port, 'GET / HTTP/1.1\r\nConnection: close\r\n\r\n')).status).toBe(400);
      expect((await exchange(port, 'GET / HTTP/1.0\r\n\r\n')).status).toBe(400);
      const twice = await exchange(
        port,
        'GET /x HTTP/1.1\r\nHost: a\r\nHost: b\r\nConnection: close\r\n\r\n',
      );
      expect(twice.status).toBe(200);
      expect(twice.text).toEndWith('GET http://a/x 0');
    });

    test('an absolute-form target is served by its Host header, or refused', async () => {
      const same = await exchange(port, 'GET http://a/x HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n');
      expect(same.text).toEndWith('GET http://a/x 0');
      const other = await exchange(port, 'GET http://b/x HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n');
      expect(other.text).not.toContain('http://b/');
      if (other.status !== 400) expect(other.text).toEndWith('GET http://a/x 0');
    });
  });
}
