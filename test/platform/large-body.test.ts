import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { type Started, startWay, type Way } from '../../scripts/smoke.ts';
import { streamBody } from '../helpers/stream-body.ts';

setDefaultTimeout(120_000);

/**
 * A 200 MB body streamed without a Content-Length is refused while it streams, under Bun, under
 * Node 20 and under Deno (no listener has a limit of its own): the answer is a 413 in the surface's
 * shape and the server's resident memory grows by less than 32 MiB. A declared one is refused at once.
 */

const root = join(import.meta.dir, '../..');
const dist = join(root, '.tmp', `large-body-${crypto.randomUUID()}`);
const MiB = 1024 * 1024;

const rss = (pid: number) => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m![1]) * 1024;
};

beforeAll(() => {
  mkdirSync(dist, { recursive: true });
  const build = Bun.spawnSync([process.execPath, 'scripts/build.ts', '--node-only', '--out', dist], {
    cwd: root,
    stdout: 'pipe',
    stderr: 'pipe',
  });
  if (build.exitCode !== 0) throw new Error(`build failed: ${build.stderr}`);
});

afterAll(() => rmSync(dist, { recursive: true, force: true }));

for (const way of ['bun', 'node', 'deno'] as Way[]) {
  describe(`under ${way}`, () => {
    let server: Started;
    beforeAll(async () => {
      server = await startWay(way, { dist });
    });
    afterAll(() => server?.dispose());

    const send200MB = async (path: string, contentType: string) => {
      // Once small, so what the route loads on first use is not counted as growth.
      await fetch(`${server.baseUrl}${path}`, { method: 'POST', headers: { 'content-type': contentType } });
      const before = rss(server.pid);
      const answer = await streamBody(`${server.baseUrl}${path}`, {
        bytes: 200 * MiB,
        contentType,
        timeoutMs: 5_000,
      });
      return { answer, growth: rss(server.pid) - before };
    };

    test('the portal sign-up form: 413 page, memory bounded', async () => {
      const { answer, growth } = await send200MB('/developer/signup', 'application/x-www-form-urlencoded');
      expect(answer.status).toBe(413);
      expect(answer.headers['content-type']).toStartWith('text/html');
      expect(answer.body).toContain('The request body is too large.');
      // Answered before the body ended (how much more the runtime drains after answering varies).
      expect(answer.sent).toBeLessThan(200 * MiB);
      expect(growth).toBeLessThan(32 * MiB);
    });

    test('the token endpoint: 413 invalid_request, memory bounded', async () => {
      const { answer, growth } = await send200MB('/v1/oauth/token', 'application/x-www-form-urlencoded');
      expect(answer.status).toBe(413);
      expect(JSON.parse(answer.body)).toEqual({
        error: 'invalid_request',
        error_description: 'The request body is too large.',
      });
      expect(answer.sent).toBeLessThan(200 * MiB);
      expect(growth).toBeLessThan(32 * MiB);
    });

    test('a declared length past every limit: the surface answers 413 before the body, in its shape', async () => {
      for (const [path, shape] of [
        ['/v1/oauth/token', 'invalid_request'],
        ['/v1/applications', 'PAYLOAD_TOO_LARGE'],
        ['/developer/signup', 'The request body is too large.'],
      ] as const) {
        const answer = await streamBody(`${server.baseUrl}${path}`, {
          bytes: 0,
          declared: 200 * MiB,
          contentType: 'application/x-www-form-urlencoded',
          timeoutMs: 5_000,
        });
        expect({ path, status: answer.status }).toEqual({ path, status: 413 });
        expect(answer.body).toContain(shape);
      }
    });
  });
}
