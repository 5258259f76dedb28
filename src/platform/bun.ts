import { loadLibcrypto } from './libcrypto.ts';
import { type ConnInfo, IDLE_TIMEOUT_SECONDS, listenError } from './listen.ts';
import { importRsaPrivateJwk, type Rs256Signer, rs256Signer } from './rs256.ts';
import type { Runtime } from './runtime.ts';
import { type SqliteDriver, statementCache } from './sqlite.ts';
import { releaseStartupPages } from './startup-pages.ts';
import { spawnWebWorker, webParentPort } from './worker.ts';

// Bun's one-shot hasher is about three times cheaper than node:crypto's createHash, which builds a
// stream object per digest, and its UUIDv7 costs a fifth of the library's: the token endpoint makes
// half a dozen digests and two ids per exchange.
const sha256 = Bun.SHA256.hash;
// RS256 through the system's OpenSSL when it is there (about twice Bun's own RSA speed); without it
// (a minimal container) the compiled binary still signs, through node:crypto. The library is bound at
// the first signature: an idle server does without its 4 MiB.
const ffi = await import('bun:ffi');
let rs256: Rs256Signer | undefined;
const signer = () => {
  rs256 ??= rs256Signer(loadLibcrypto(ffi));
  return rs256;
};

/** The peer's address, looked up when first read: discovery and the JWKS never read it. */
function connOf(req: Request, srv: Bun.Server<undefined>): ConnInfo {
  let ip: string | undefined;
  return {
    get ip() {
      ip ??= srv.requestIP(req)?.address ?? 'unknown';
      return ip;
    },
  };
}

/**
 * Bun hands the app a relative URL ("/v1/metrics") when the Host header is one the URL parser
 * refuses ("x@y"), and the router would then read the path from the wrong offset ("/metrics"). Node
 * refuses such a request with 400; so does this.
 */
const wellFormed = (req: Request) => req.url.startsWith('http');
const badRequest = () => new Response('Bad Request', { status: 400 });
export const bunRuntime: Runtime = {
  name: 'bun',
  openSqlite,
  async listen(handler, opts) {
    // Bun matches these natively; any other method on the path falls through to the fetch handler.
    const routes = Object.fromEntries(
      Object.entries(opts.routes ?? {}).map(([path, methods]) => [
        path,
        Object.fromEntries(
          Object.entries(methods).map(([method, handler]) => [
            method,
            (req: Request, srv: Bun.Server<undefined>) =>
              wellFormed(req) ? handler(req, connOf(req, srv)) : badRequest(),
          ]),
        ),
      ]),
    );
    let server: Bun.Server<undefined>;
    try {
      server = Bun.serve({
        routes,
        hostname: opts.hostname,
        port: opts.port,
        idleTimeout: opts.idleTimeoutSeconds ?? IDLE_TIMEOUT_SECONDS,
        // The app's limits decide, in each surface's shape: past Bun's own it would close without an answer.
        maxRequestBodySize: Number.MAX_SAFE_INTEGER,
        fetch: (req, srv) => (wellFormed(req) ? handler(req, connOf(req, srv)) : badRequest()),
      });
    } catch (e) {
      throw listenError(e, opts.hostname, opts.port);
    }
    return {
      port: server.port ?? opts.port,
      hostname: opts.hostname,
      close: async () => {
        await server.stop(true);
      },
    };
  },
  spawnWorker: spawnWebWorker,
  parentPort: webParentPort,
  sha256Hex: (text) => sha256(text, 'hex'),
  sha256Bytes: (data) => sha256(data) as Uint8Array,
  hmacSha256Base64url: (key, message) =>
    new Bun.CryptoHasher('sha256', key).update(message).digest('base64url'),
  timeOrderedUuid: (at) => Bun.randomUUIDv7('hex', at.getTime()),
  get rs256Provider() {
    return signer().provider;
  },
  importRsaPrivateJwk,
  signRs256: (key, input) => signer().signRs256(key, input),
  boundHeap,
  releaseStartupPages: () => releaseStartupPages(ffi),
};

// Imported as bun:ffi is: a static import would be hoisted into the Node bundle (scripts/build.ts).
const { heapSize } = await import('bun:jsc');
/** How often the heap's size is looked at; a look costs about 0.3 ms on a serving heap (performance.md). */
const HEAP_CHECK_MS = 100;
/** The least growth that starts a collection; a bigger heap may grow by half of itself first. */
const MIN_HEAP_GROWTH = 8 * 1024 * 1024;

/**
 * JavaScriptCore sizes its collections by the machine's memory: on a machine with gigabytes free it
 * left a server's garbage uncollected past 40 MiB. A full collection once the heap has grown by half
 * (at least 8 MiB) since the last one keeps it near what is live (docs/architecture.md#heap).
 */
function boundHeap(): () => void {
  let live = heapSize();
  const timer = setInterval(() => {
    if (heapSize() - live < Math.max(MIN_HEAP_GROWTH, live / 2)) return;
    Bun.gc(true);
    live = heapSize();
  }, HEAP_CHECK_MS);
  timer.unref();
  return () => clearInterval(timer);
}

async function openSqlite(path: string, opts: { readonly?: boolean } = {}): Promise<SqliteDriver> {
  const { Database } = await import('bun:sqlite');
  const db = new Database(
    path,
    opts.readonly ? { readonly: true, strict: true } : { create: true, strict: true },
  );
  return {
    engine: 'sqlite',
    exec: (sql) => db.exec(sql),
    prepare: statementCache((sql) => {
      const s = db.prepare(sql);
      return {
        get: (...p: unknown[]) => s.get(...(p as never[])) ?? undefined,
        all: (...p: unknown[]) => s.all(...(p as never[])),
        run: (...p: unknown[]) => ({ changes: Number(s.run(...(p as never[])).changes) }),
      };
    }),
    transaction: (fn) => db.transaction(fn).immediate(),
    get inTransaction() {
      return db.inTransaction;
    },
    drizzle: async (schema) => (await import('drizzle-orm/bun-sqlite')).drizzle({ client: db, schema }),
    async backup(file) {
      db.prepare('VACUUM INTO ?').run(file);
    },
    // true: finalize its statements too, so the file is let go now (a zombie connection keeps its locks).
    close: () => db.close(true),
  };
}
