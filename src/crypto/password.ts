import { argon2id, argon2Verify } from 'hash-wasm';

// OWASP's argon2id baseline (19 MiB, 2 iterations). hash-wasm is WebAssembly, so the same code runs
// under Bun, Node and inside the compiled binary.
const PARAMS = { parallelism: 1, iterations: 2, memorySize: 19456, hashLength: 32 } as const;

export async function hashPassword(password: string): Promise<string> {
  return argon2id({
    ...PARAMS,
    password,
    salt: crypto.getRandomValues(new Uint8Array(16)),
    outputType: 'encoded',
  });
}

export async function verifyPassword(password: string, encoded: string): Promise<boolean> {
  if (!encoded.startsWith('$argon2id$')) return false;
  try {
    return await argon2Verify({ password, hash: encoded });
  } catch {
    return false;
  }
}

/** A throwaway hash to verify against when the account is unknown, so timing does not reveal it. */
let decoy: Promise<string> | undefined;
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(crypto.randomUUID());
  return decoy;
}
