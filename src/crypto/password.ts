import { ApiError } from '../errors.ts';
import {
  type Argon2Job,
  type Argon2Pool,
  type Argon2PoolOptions,
  createArgon2Pool,
  PoolBusyError,
} from '../platform/argon2-pool.ts';

// OWASP's argon2id baseline (19 MiB, 2 iterations). hash-wasm is WebAssembly, so the same code runs
// under Bun, Node and inside the compiled binary; it runs in worker threads (src/platform/argon2-pool.ts).
const PARAMS = { parallelism: 1, iterations: 2, memorySize: 19456, hashLength: 32 } as const;

/** One pool per process: the cores are shared by every request and command. */
let pool: Argon2Pool | undefined;

/** Replaces the process's hashing pool (size, queue timeout); for tests and benchmarks. */
export async function configurePasswordHashing(opts: Argon2PoolOptions = {}): Promise<void> {
  const old = pool;
  pool = createArgon2Pool(opts);
  await old?.close();
}

async function run(job: Argon2Job): Promise<string | boolean> {
  pool ??= createArgon2Pool();
  try {
    return await pool.run(job);
  } catch (err) {
    if (err instanceof PoolBusyError) {
      const s = err.retryAfterSeconds;
      const message = `The server is busy; try again in ${s} ${s === 1 ? 'second' : 'seconds'}.`;
      throw new ApiError('SERVICE_BUSY', message, 503, undefined, { 'Retry-After': String(s) });
    }
    throw err;
  }
}

export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(16));
  return (await run({ op: 'hash', password, salt, params: PARAMS })) as string;
}

/**
 * What an argon2id hash may ask of a check, whoever made it. The ceilings keep a hash from holding the
 * hashing pool (every failed sign-in pays its cost; about 13 times Verity's own at most) while taking
 * the defaults of common libraries (argon2-cffi, PHP, Spring, Keycloak). The floors, below which a hash
 * is quick to crack, are the import's to refuse: a stored one under them still verifies, and is
 * re-hashed at its next sign-in (`needsRehash`). Verity's own hashes are within.
 */
const BOUNDS = {
  memory: [4096, 131072],
  iterations: [1, 16],
  parallelism: [1, 16],
  work: [12288, 524288],
  saltBytes: [8, 64],
  hashBytes: [16, 64],
} as const;

const ENCODED = /^\$argon2id\$v=19\$m=(\d{1,9}),t=(\d{1,9}),p=(\d{1,9})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

/**
 * Why `encoded` is not an argon2id hash Verity checks, or undefined when it is one; with `floors`, also
 * one too weak to accept (an import).
 */
export function hashProblem(encoded: string, opts: { floors?: boolean } = {}): string | undefined {
  const m = ENCODED.exec(encoded);
  if (!m) return 'must be an encoded $argon2id$v=19$m=…,t=…,p=…$salt$hash hash';
  const [memory, iterations, parallelism] = [m[1], m[2], m[3]].map(Number) as [number, number, number];
  const bytes = (b64: string) => Math.floor((b64.length * 3) / 4);
  // The cost's floors are the import's; a salt or hash of the wrong size is no hash at all.
  const checks: [string, number, readonly [number, number], boolean][] = [
    ['m (KiB)', memory, BOUNDS.memory, !!opts.floors],
    ['t', iterations, BOUNDS.iterations, !!opts.floors],
    ['p', parallelism, BOUNDS.parallelism, !!opts.floors],
    ['m × t', memory * iterations, BOUNDS.work, !!opts.floors],
    ['the salt (bytes)', bytes(m[4]!), BOUNDS.saltBytes, true],
    ['the hash (bytes)', bytes(m[5]!), BOUNDS.hashBytes, true],
  ];
  for (const [name, value, [min, max], floor] of checks)
    if (value > max || (floor && value < min)) return `${name} must be from ${min} to ${max}`;
  return undefined;
}

export async function verifyPassword(password: string, encoded: string): Promise<boolean> {
  // Never run over the ceilings, which only a hash stored before them can be: it would hold a worker.
  if (hashProblem(encoded)) return false;
  try {
    return (await run({ op: 'verify', password, encoded })) === true;
  } catch (err) {
    if (err instanceof ApiError) throw err;
    return false;
  }
}

/**
 * Checks `password` against its account's stored hash, or against the decoy when there is none, so
 * neither the answer nor the time tells whether the account exists. A matching hash made with other
 * parameters (see `needsRehash`) is replaced through `replace`; a busy pool leaves it for next time.
 */
export async function checkPassword(
  password: string,
  stored: string | null | undefined,
  replace: (hash: string) => void,
): Promise<boolean> {
  const valid = (await verifyPassword(password, stored ?? (await decoyHash()))) && !!stored;
  if (valid && needsRehash(stored)) {
    try {
      replace(await hashPassword(password));
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
    }
  }
  return valid;
}

/**
 * Whether `encoded` was made with other parameters than `hashPassword` uses (an imported hash, or one
 * from before a change of them): such a hash takes another time to check than the decoy, which tells
 * that its account exists, so it is replaced at its next successful check.
 */
export function needsRehash(encoded: string): boolean {
  const [, alg, version, params, , hash] = encoded.split('$');
  return (
    alg !== 'argon2id' ||
    version !== 'v=19' ||
    params !== `m=${PARAMS.memorySize},t=${PARAMS.iterations},p=${PARAMS.parallelism}` ||
    hash?.length !== Math.ceil((PARAMS.hashLength * 4) / 3)
  );
}

/** A throwaway hash to verify against when the account is unknown, so timing does not reveal it. */
let decoy: Promise<string> | undefined;
export function decoyHash(): Promise<string> {
  if (decoy) return decoy;
  const made = hashPassword(crypto.randomUUID());
  // A decoy that could not be made (a busy pool) is tried again next time.
  made.catch(() => {
    if (decoy === made) decoy = undefined;
  });
  decoy = made;
  return made;
}
