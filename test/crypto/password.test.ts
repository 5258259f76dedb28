import { afterAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import {
  configurePasswordHashing,
  hashPassword,
  hashProblem,
  verifyPassword,
} from '../../src/crypto/password.ts';
import { ApiError } from '../../src/errors.ts';

setDefaultTimeout(30_000);
afterAll(() => configurePasswordHashing());

describe('password hashing', () => {
  test('argon2id in a worker: hashes verify, wrong passwords and other formats do not', async () => {
    const hash = await hashPassword('correct horse battery staple');
    expect(hash).toStartWith('$argon2id$v=19$m=19456,t=2,p=1$');
    expect(await verifyPassword('correct horse battery staple', hash)).toBe(true);
    expect(await verifyPassword('correct horse battery stapler', hash)).toBe(false);
    expect(await verifyPassword('x', '$2b$10$notargon')).toBe(false);
    expect(await verifyPassword('x', '$argon2id$garbage')).toBe(false);
  });

  test('a hash over the ceilings is never checked; one under the floors verifies but is no import', async () => {
    const { argon2id } = await import('hash-wasm');
    const made = (memorySize: number, iterations: number, parallelism = 1) =>
      argon2id({
        password: 'pw',
        salt: new Uint8Array(16),
        parallelism,
        iterations,
        memorySize,
        hashLength: 32,
        outputType: 'encoded',
      });
    // Too cheap to trust: refused at import, yet a stored one still verifies (and is re-hashed at sign-in).
    const weak = await made(1024, 1);
    expect(hashProblem(weak, { floors: true })).toContain('m (KiB) must be from 4096');
    expect(hashProblem(weak)).toBeUndefined();
    expect(await verifyPassword('pw', weak)).toBe(true);
    // Common libraries' defaults are taken: Spring's, and PHP's (64 MiB, 4 passes).
    for (const [m, t] of [
      [16384, 2],
      [65536, 4],
    ] as const)
      expect(hashProblem(await made(m, t), { floors: true })).toBeUndefined();
    // Over a ceiling it is never run: a check of this one would hold a worker for minutes.
    const heavy =
      '$argon2id$v=19$m=65536,t=100000,p=1$AAAAAAAAAAAAAAAAAAAAAA$3U7mfwWkgnX0mebRP8K7A+/h5hMPe5BK8zqJJfEvoaA';
    expect(hashProblem(heavy)).toContain('t must be from 1 to 16');
    expect(await verifyPassword('pw', heavy)).toBe(false);
    for (const [encoded, problem] of [
      [
        '$argon2id$v=19$m=131072,t=5,p=1$AAAAAAAAAAAAAAAAAAAAAA$3U7mfwWkgnX0mebRP8K7A+/h5hMPe5BK8zqJJfEvoaA',
        'm × t',
      ],
      [
        '$argon2id$v=19$m=262144,t=1,p=1$AAAAAAAAAAAAAAAAAAAAAA$3U7mfwWkgnX0mebRP8K7A+/h5hMPe5BK8zqJJfEvoaA',
        'm (KiB)',
      ],
      [
        '$argon2id$v=19$m=19456,t=2,p=32$AAAAAAAAAAAAAAAAAAAAAA$3U7mfwWkgnX0mebRP8K7A+/h5hMPe5BK8zqJJfEvoaA',
        'p must',
      ],
      ['$argon2id$v=19$m=19456,t=2,p=1$AAAA$3U7mfwWkgnX0mebRP8K7A+/h5hMPe5BK8zqJJfEvoaA', 'the salt'],
      ['$argon2id$v=19$m=19456,t=2,p=1$AAAAAAAAAAAAAAAAAAAAAA$3U7mfwWk', 'the hash'],
      [
        '$argon2i$v=19$m=19456,t=2,p=1$AAAAAAAAAAAAAAAAAAAAAA$3U7mfwWkgnX0mebRP8K7A+/h5hMPe5BK8zqJJfEvoaA',
        'encoded',
      ],
    ])
      expect(hashProblem(encoded!)).toContain(problem!);
    expect(hashProblem(await hashPassword('pw'), { floors: true })).toBeUndefined();
  });

  test('hashes stored before hashing moved off the event loop still verify', async () => {
    // Made by hash-wasm on the main thread (salt of zero bytes).
    const old =
      '$argon2id$v=19$m=19456,t=2,p=1$AAAAAAAAAAAAAAAAAAAAAA$3U7mfwWkgnX0mebRP8K7A+/h5hMPe5BK8zqJJfEvoaA';
    expect(await verifyPassword('hi', old)).toBe(true);
  });

  test('jobs beyond the pool queue, and one that waits too long is refused with 503 and Retry-After', async () => {
    // A generous wait: on a loaded machine one hash can take seconds.
    await configurePasswordHashing({ size: 1, queueTimeoutMs: 60_000 });
    const queued = await Promise.all([hashPassword('a'), hashPassword('b'), hashPassword('c')]);
    expect(new Set(queued).size).toBe(3);

    await configurePasswordHashing({ size: 1, queueTimeoutMs: 1 });
    const results = await Promise.allSettled([hashPassword('a'), hashPassword('b')]);
    expect(results[0]!.status).toBe('fulfilled');
    const refused = results[1] as PromiseRejectedResult;
    expect(refused.reason).toBeInstanceOf(ApiError);
    expect(refused.reason).toMatchObject({
      status: 503,
      code: 'SERVICE_BUSY',
      headers: { 'Retry-After': '1' },
    });
  });

  test('a full queue refuses at once', async () => {
    const { createArgon2Pool, PoolBusyError } = await import('../../src/platform/argon2-pool.ts');
    const pool = createArgon2Pool({ size: 1, queueTimeoutMs: 60_000, maxQueue: 1 });
    const job = {
      op: 'verify',
      password: 'x',
      encoded:
        '$argon2id$v=19$m=19456,t=2,p=1$AAAAAAAAAAAAAAAAAAAAAA$3U7mfwWkgnX0mebRP8K7A+/h5hMPe5BK8zqJJfEvoaA',
    } as const;
    const running = pool.run(job);
    const waiting = pool.run(job);
    await expect(pool.run(job)).rejects.toBeInstanceOf(PoolBusyError);
    expect(await running).toBe(false);
    expect(await waiting).toBe(false);
    await pool.close();
  });
});
