import type { FetchHandler, Listening, ListenOptions } from './listen.ts';
import type { RsaPrivateKey } from './rs256.ts';
import type { SqliteDriver } from './sqlite.ts';
import type { StartupRelease } from './startup-pages.ts';
import type { ParentPort, WorkerHandle } from './worker.ts';

export type RuntimeName = 'bun' | 'node' | 'deno';

/**
 * Everything that differs between Bun, Node and Deno, behind one interface; `src/platform/{bun,node,
 * deno}.ts` each implement it and the rest of the code sees only `runtime`. Functions on hot paths
 * (digests, ids, signing) are plain properties, so a call costs one property read.
 */
export interface Runtime {
  readonly name: RuntimeName;
  /** `readonly`: the file must exist, and nothing (not even a checkpoint on close) writes to it. */
  openSqlite(path: string, opts?: { readonly?: boolean }): Promise<SqliteDriver>;
  /** Serves `handler`, closing connections that stay silent (docs/reference.md, "Listener"). */
  listen(handler: FetchHandler, opts: ListenOptions): Promise<Listening>;
  /** Starts the module at `url` (a `*.worker.ts` file, also a build entry point) in a thread of its own. */
  spawnWorker(url: URL): WorkerHandle;
  /** Inside a worker: the channel to the thread that spawned it. */
  parentPort(): ParentPort;
  /** Synchronous, so the token endpoint can hash inside its synchronous transaction. */
  sha256Hex(text: string): string;
  sha256Bytes(data: string | Uint8Array): Uint8Array;
  /** Keyed with a UTF-8 string; base64url. */
  hmacSha256Base64url(key: string, message: string): string;
  /** A UUIDv7 (RFC 9562) for the given time; monotonic within a millisecond. */
  timeOrderedUuid(at: Date): string;
  /** What signs RS256 here (docs/architecture.md#signing); under Bun, reading it binds libcrypto. */
  readonly rs256Provider: 'libcrypto' | 'node:crypto';
  importRsaPrivateJwk(jwk: JsonWebKey): RsaPrivateKey;
  /** RSASSA-PKCS1-v1_5 with SHA-256 over the UTF-8 bytes of `input`, base64url without padding. */
  signRs256(key: RsaPrivateKey, input: string): string;
  /**
   * Keeps the JavaScript heap close to what is live while the server runs (docs/architecture.md#heap);
   * returns the stop. Under Node and Deno it does nothing: V8's collector decides alone.
   */
  boundHeap(): () => void;
  /**
   * Once a server has started: drops start-up's compiled code, then gives the kernel back the
   * executable's pages that start-up touched (docs/architecture.md#startup-pages). Under Node and
   * Deno it does nothing and says so.
   */
  releaseStartupPages(): Promise<StartupRelease>;
}

export function detectRuntime(): RuntimeName {
  const g = globalThis as { Bun?: unknown; Deno?: unknown };
  return g.Bun !== undefined ? 'bun' : g.Deno !== undefined ? 'deno' : 'node';
}

// Only the running runtime's adapter is loaded, so Node never loads bun:sqlite and Deno never loads
// better-sqlite3. Chosen here, once, rather than in main.ts: tests, scripts and workers import this
// module without going through main.ts and get the same adapter.
async function load(name: RuntimeName): Promise<Runtime> {
  if (name === 'bun') return (await import('./bun.ts')).bunRuntime;
  if (name === 'deno') return (await import('./deno.ts')).denoRuntime;
  return (await import('./node.ts')).nodeRuntime;
}

export const runtime: Runtime = await load(detectRuntime());
