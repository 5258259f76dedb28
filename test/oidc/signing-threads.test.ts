import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { createLocalJWKSet, type JSONWebKeySet, jwtVerify } from 'jose';
import { runtime } from '../../src/platform/runtime.ts';
import type { WorkerHandle } from '../../src/platform/worker.ts';
import { createTestApp } from '../helpers/apps.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { waitFor } from '../helpers/wait.ts';
import { basic, mintCode, REDIRECT } from '../oauth/fixtures.ts';

/** The signing threads started while this file runs: real workers, watched. */
interface SigningThread {
  exited: boolean;
  /** Ends the thread right after the next message it is sent, with its signatures in flight. */
  killAfterNextPost: boolean;
}
let threads: SigningThread[] = [];
const spawnWorker = runtime.spawnWorker;

beforeAll(() => {
  runtime.spawnWorker = (url): WorkerHandle => {
    const real = spawnWorker(url);
    if (!url.pathname.endsWith('/signing.worker.ts')) return real;
    const t: SigningThread = { exited: false, killAfterNextPost: false };
    real.onExit(() => {
      t.exited = true;
    });
    threads.push(t);
    return {
      ...real,
      post(m) {
        real.post(m);
        if (t.killAfterNextPost) real.terminate();
      },
    };
  };
});
afterAll(() => {
  runtime.spawnWorker = spawnWorker;
});

let server: TestServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
  threads = [];
});

/** Exchanges `n` fresh codes at once over HTTP; every ID token must verify against the served JWKS. */
async function exchanges(s: TestServer, n: number): Promise<void> {
  const app = await createTestApp(s.ctx, {
    type: 'confidential',
    redirectUris: [REDIRECT],
    scopes: ['openid'],
  });
  const minted = await Promise.all(
    Array.from({ length: n }, () => mintCode(s.ctx, app, { scopes: ['openid'] })),
  );
  const responses = await Promise.all(
    minted.map((m) =>
      fetch(`${s.url}/v1/oauth/token`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Authorization: basic(app.clientId, app.clientSecret!),
        },
        body: JSON.stringify({
          grant_type: 'authorization_code',
          code: m.code,
          redirect_uri: m.redirectUri,
          code_verifier: m.verifier,
        }),
      }),
    ),
  );
  const jwks = (await (await fetch(`${s.url}/.well-known/jwks.json`)).json()) as JSONWebKeySet;
  for (const res of responses) {
    expect(res.status).toBe(200);
    const { id_token } = (await res.json()) as { id_token: string };
    await jwtVerify(id_token, createLocalJWKSet(jwks), {
      issuer: s.ctx.config.server.base_url,
      audience: app.clientId,
      currentDate: s.ctx.clock.now(),
    });
  }
}

const RATE = '[rate_limits.oauth]\nrequests = 1000';

describe('ID tokens signed on signing threads', () => {
  test('concurrent exchanges are signed on the configured threads, and verify', async () => {
    server = await startTestServer({ extra: RATE, server: 'signing_threads = 2' });
    await exchanges(server, 12);
    expect(threads).toHaveLength(2);
  });

  test('a thread killed with a signature in flight: the exchange still succeeds', async () => {
    server = await startTestServer({ extra: RATE, server: 'signing_threads = 1' });
    await exchanges(server, 1);
    threads[0]!.killAfterNextPost = true;
    await exchanges(server, 3);
    expect(threads[0]!.exited).toBe(true);
    // Signed on the serving thread until the lost thread's backoff is over.
    await exchanges(server, 2);
  });

  test('stopping the server ends its signing threads', async () => {
    server = await startTestServer({ extra: RATE, server: 'signing_threads = 2' });
    await exchanges(server, 4);
    const started = threads;
    expect(started.some((t) => t.exited)).toBe(false);
    await server.stop();
    server = undefined;
    await waitFor('both signing threads to exit', () => started.every((t) => t.exited));
  });

  test('signing_threads = 0 starts no thread', async () => {
    server = await startTestServer({ extra: RATE, server: 'signing_threads = 0' });
    await exchanges(server, 3);
    expect(threads).toHaveLength(0);
  });
});
