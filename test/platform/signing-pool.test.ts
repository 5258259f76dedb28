import { afterEach, describe, expect, test } from 'bun:test';
import { generateKeyPairSync } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { compactVerify, importJWK, type JWK } from 'jose';
import { runtime } from '../../src/platform/runtime.ts';
import { decodeRequest, type SigningRequest } from '../../src/platform/signing-messages.ts';
import {
  createSigningPool,
  type PoolKey,
  type SigningPool,
  type SigningPoolOptions,
  signingThreads,
} from '../../src/platform/signing-pool.ts';
import type { WorkerHandle } from '../../src/platform/worker.ts';

function rsaKey(kid: string): PoolKey & { publicJwk: JWK } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = privateKey.export({ format: 'jwk' }) as JsonWebKey;
  return { kid, jwk, key: runtime.importRsaPrivateJwk(jwk), publicJwk: publicKey.export({ format: 'jwk' }) };
}
const keyA = rsaKey('kid-a');
const keyB = rsaKey('kid-b');
const header = (kid: string) => Buffer.from(JSON.stringify({ alg: 'RS256', kid })).toString('base64url');
const signingInput = (kid: string, n: number) =>
  `${header(kid)}.${Buffer.from(JSON.stringify({ sub: `s${n}`, pad: 'x'.repeat(n) })).toString('base64url')}`;

async function verifies(input: string, signature: string, publicJwk: JWK): Promise<boolean> {
  try {
    await compactVerify(`${input}.${signature}`, await importJWK(publicJwk, 'RS256'));
    return true;
  } catch {
    return false;
  }
}

/** Real workers, with every message the pool posts to each and every one it ends recorded. */
interface Watched {
  handle: WorkerHandle;
  posted: SigningRequest[];
  ended: boolean;
}

let pools: SigningPool[] = [];
afterEach(() => {
  for (const p of pools) p.close();
  pools = [];
});

/** `onPost` runs after each message is posted; a `deaf` worker is never given its messages. */
function watchedPool(
  opts: Omit<SigningPoolOptions, 'spawn'>,
  { onPost, deaf = false }: { onPost?: (w: Watched) => void; deaf?: boolean } = {},
) {
  const workers: Watched[] = [];
  const pool = createSigningPool({
    ...opts,
    spawn(url) {
      const real = runtime.spawnWorker(url);
      const w: Watched = {
        posted: [],
        ended: false,
        handle: {
          ...real,
          post(m) {
            w.posted.push(decodeRequest(m as string));
            if (!deaf) real.post(m);
            onPost?.(w);
          },
          terminate() {
            w.ended = true;
            real.terminate();
          },
        },
      };
      workers.push(w);
      return w.handle;
    },
  });
  pools.push(pool);
  return { pool, workers };
}

describe('the signing pool', () => {
  test('signs on its threads byte for byte as the calling thread does, and jose verifies it', async () => {
    const { pool, workers } = watchedPool({ threads: 2 });
    const inputs = Array.from({ length: 40 }, (_, i) => signingInput(keyA.kid, i * 37));
    const signatures = await Promise.all(inputs.map((input) => pool.sign(keyA, input)));
    const inline = createSigningPool({ threads: 0 });
    for (const [i, input] of inputs.entries()) {
      expect(signatures[i]).toBe(await inline.sign(keyA, input));
      expect(await verifies(input, signatures[i]!, keyA.publicJwk)).toBe(true);
    }
    // Both threads signed: the 40 signatures of one turn were split between them.
    expect(workers.map((w) => w.posted.flatMap((m) => m.jobs).length)).toEqual([20, 20]);
  });

  test('an input with a newline crosses to a thread intact and is signed as it is', async () => {
    const { pool, workers } = watchedPool({ threads: 1 });
    const odd = `${signingInput(keyA.kid, 1)}\n${signingInput(keyA.kid, 2)}`;
    const plain = signingInput(keyA.kid, 3);
    const [a, b] = await Promise.all([pool.sign(keyA, odd), pool.sign(keyA, plain)]);
    // RS256 is deterministic: the same signature as the calling thread's own.
    expect(a).toBe(await createSigningPool({ threads: 0 }).sign(keyA, odd));
    expect(await verifies(plain, b!, keyA.publicJwk)).toBe(true);
    expect(workers.flatMap((w) => w.posted.flatMap((m) => m.jobs.map(([, input]) => input)))).toEqual([
      odd,
      plain,
    ]);
  });

  test('the signatures asked for in one turn go to a worker in one message, the key sent once', async () => {
    const { pool, workers } = watchedPool({ threads: 1 });
    await Promise.all(Array.from({ length: 25 }, (_, i) => pool.sign(keyA, signingInput(keyA.kid, i))));
    await pool.sign(keyA, signingInput(keyA.kid, 99));
    const [first, second] = workers[0]!.posted;
    expect(workers[0]!.posted).toHaveLength(2);
    expect(first!.jobs).toHaveLength(25);
    expect(first!.add.map(([kid]) => kid)).toEqual([keyA.kid]);
    expect(second!.jobs).toHaveLength(1);
    expect(second!.add).toEqual([]);
  });

  test('a new key reaches the workers before they sign with it, and the old one is dropped', async () => {
    const { pool, workers } = watchedPool({ threads: 1 });
    const before = signingInput(keyA.kid, 1);
    expect(await verifies(before, await pool.sign(keyA, before), keyA.publicJwk)).toBe(true);
    const after = signingInput(keyB.kid, 2);
    const signature = await pool.sign(keyB, after);
    expect(await verifies(after, signature, keyB.publicJwk)).toBe(true);
    expect(await verifies(after, signature, keyA.publicJwk)).toBe(false);
    const switched = workers[0]!.posted[1]!;
    expect(switched.add.map(([kid]) => kid)).toEqual([keyB.kid]);
    expect(switched.drop).toEqual([keyA.kid]);
    expect(switched.jobs.map(([kid]) => kid)).toEqual([keyB.kid]);
  });

  test('a worker killed with signatures in flight loses none, and a new one is started', async () => {
    const lost: string[] = [];
    let killed = false;
    const { pool, workers } = watchedPool(
      { threads: 1, restartAfterMs: 0, onWorkerLost: (reason) => lost.push(reason) },
      {
        // The first worker is ended as soon as it has been sent its first signatures.
        onPost(w) {
          if (killed) return;
          killed = true;
          w.handle.terminate();
        },
      },
    );
    const inputs = Array.from({ length: 5 }, (_, i) => signingInput(keyA.kid, i));
    const signatures = await Promise.all(inputs.map((input) => pool.sign(keyA, input)));
    for (const [i, input] of inputs.entries())
      expect(await verifies(input, signatures[i]!, keyA.publicJwk)).toBe(true);
    expect(lost).toEqual(['exited']);
    // The next turn's signature goes to a new worker, which is sent the key again.
    const next = signingInput(keyA.kid, 7);
    expect(await verifies(next, await pool.sign(keyA, next), keyA.publicJwk)).toBe(true);
    expect(workers).toHaveLength(2);
    expect(workers[1]!.posted[0]!.add.map(([kid]) => kid)).toEqual([keyA.kid]);
  });

  test('while a lost worker waits out its backoff, the calling thread signs', async () => {
    let killed = false;
    const { pool, workers } = watchedPool(
      { threads: 1, restartAfterMs: 60_000 },
      {
        onPost(w) {
          if (!killed) w.handle.terminate();
          killed = true;
        },
      },
    );
    for (const n of [1, 2, 3]) {
      const input = signingInput(keyA.kid, n);
      expect(await verifies(input, await pool.sign(keyA, input), keyA.publicJwk)).toBe(true);
    }
    expect(workers).toHaveLength(1);
  });

  test('a worker that does not answer in time is ended and its signatures made inline', async () => {
    const lost: string[] = [];
    const { pool, workers } = watchedPool(
      { threads: 1, answerWithinMs: 50, onWorkerLost: (reason) => lost.push(reason) },
      { deaf: true },
    );
    const input = signingInput(keyA.kid, 3);
    expect(await verifies(input, await pool.sign(keyA, input), keyA.publicJwk)).toBe(true);
    expect(workers[0]!.ended).toBe(true);
    expect(lost).toEqual(['did not answer']);
  });

  test('a key the worker cannot import is signed with on the calling thread', async () => {
    const { pool } = watchedPool({ threads: 1 });
    const unreadable = { ...keyA, kid: 'unreadable', jwk: { kty: 'RSA', n: 'AQAB' } as JsonWebKey };
    const input = signingInput('unreadable', 5);
    expect(await verifies(input, await pool.sign(unreadable, input), keyA.publicJwk)).toBe(true);
  });

  test('close ends every worker; signatures in flight and later ones are still made', async () => {
    const { pool, workers } = watchedPool({ threads: 2 });
    await Promise.all([1, 2, 3, 4].map((n) => pool.sign(keyA, signingInput(keyA.kid, n))));
    expect(workers).toHaveLength(2);
    const input = signingInput(keyA.kid, 9);
    const inFlight = pool.sign(keyA, input);
    await new Promise((r) => setImmediate(r));
    pool.close();
    expect(workers.every((w) => w.ended)).toBe(true);
    expect(await verifies(input, await inFlight, keyA.publicJwk)).toBe(true);
    const later = signingInput(keyA.kid, 10);
    expect(await verifies(later, await pool.sign(keyA, later), keyA.publicJwk)).toBe(true);
    expect(workers).toHaveLength(2);
  });

  test('"auto" is one thread per core, and none on a single core', () => {
    expect(signingThreads(3)).toBe(3);
    expect(signingThreads(0)).toBe(0);
    const cores = availableParallelism();
    expect(signingThreads('auto')).toBe(cores > 1 ? cores : 0);
  });
});
