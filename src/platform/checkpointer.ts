import { isBun } from './runtime.ts';

/**
 * A worker thread with its own connection to a WAL database, which checkpoints it when asked. A
 * checkpoint copies the log back into the database file and fsyncs both; left to SQLite's automatic
 * checkpoint it runs on whichever connection commits, so every request waits behind the fsync (tens
 * of milliseconds on a VM disk) once every thousand pages. PASSIVE never blocks the writer: it copies
 * what no reader still needs and leaves the rest for the next round. When and whether to checkpoint is
 * decided by the caller (src/db/checkpoint.ts); the worker only runs what it is told, one at a time.
 */
export interface CheckpointWorker {
  /** One PASSIVE checkpoint; rejects with why it failed, and then the worker is ended. */
  checkpoint(): Promise<void>;
  /** A last checkpoint, then the connection is closed and the thread ended. */
  stop(): Promise<void>;
}

export interface CheckpointWorkerOptions {
  /** For tests: while this file exists, every checkpoint fails, as on a full disk. */
  faultPath?: string;
}

type Message = { type: 'done' } | { type: 'error'; message: string };

/** A checkpoint not answered by then is a failure (e.g. a disk that stopped answering). */
const CHECKPOINT_WITHIN_MS = 30_000;
const STOP_WITHIN_MS = 2000;

// The same handler for both runtimes; only the driver differs (`open`, `exists` and `send` are
// defined before it).
const HANDLER = `
let db;
let faultPath;
function checkpoint() {
  if (faultPath && exists(faultPath)) throw new Error('injected checkpoint fault');
  db.exec('PRAGMA wal_checkpoint(PASSIVE)');
}
function handle(m) {
  try {
    if (m.type === 'start') {
      faultPath = m.faultPath;
      db = open(m.path);
      db.exec('PRAGMA busy_timeout = 5000');
    } else if (m.type === 'checkpoint') checkpoint();
    else {
      try { checkpoint(); } catch {}
      db.close();
    }
    send({ type: 'done' });
  } catch (e) {
    send({ type: 'error', message: String((e && e.message) || e) });
  }
}
`;

const BUN_WORKER = `
const { Database } = await import('bun:sqlite');
const { existsSync: exists } = await import('node:fs');
const open = (path) => new Database(path);
const send = (m) => postMessage(m);
${HANDLER}
self.onmessage = (e) => handle(e.data);
`;

const NODE_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { existsSync: exists } = require('node:fs');
const Database = require(workerData.driver);
const open = (path) => new Database(path);
const send = (m) => parentPort.postMessage(m);
${HANDLER}
parentPort.on('message', handle);
`;

interface Port {
  post(message: unknown): void;
  onMessage(fn: (m: Message) => void): void;
  onExit(fn: (reason: string) => void): void;
  terminate(): void;
}

async function spawn(): Promise<Port> {
  if (isBun) {
    const url = URL.createObjectURL(new Blob([BUN_WORKER], { type: 'application/javascript' }));
    const w = new Worker(url);
    return {
      post: (m) => w.postMessage(m),
      onMessage: (fn) => w.addEventListener('message', (e) => fn(e.data as Message)),
      onExit: (fn) => {
        w.addEventListener('error', (e) => fn(String((e as ErrorEvent).message)));
        w.addEventListener('close', () => fn('exited'));
      },
      terminate: () => w.terminate(),
    };
  }
  const { Worker: NodeWorker } = await import('node:worker_threads');
  const { createRequire } = await import('node:module');
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const w = new NodeWorker(NODE_WORKER, { eval: true, workerData: { driver } });
  w.unref();
  return {
    post: (m) => w.postMessage(m),
    onMessage: (fn) => w.on('message', fn),
    onExit: (fn) => {
      w.on('error', (e) => fn(e.message));
      w.on('exit', () => fn('exited'));
    },
    terminate: () => void w.terminate(),
  };
}

/** Starts a worker with `path` open; rejects (the worker ended) if it cannot open it. */
export async function startCheckpointWorker(
  path: string,
  opts: CheckpointWorkerOptions = {},
): Promise<CheckpointWorker> {
  const port = await spawn();
  let answer: ((m: Message) => void) | undefined;
  let gone: string | undefined;
  port.onMessage((m) => answer?.(m));
  port.onExit((reason) => {
    gone ??= reason;
    answer?.({ type: 'error', message: `checkpoint worker ${reason}` });
  });
  const end = () => {
    gone ??= 'ended';
    port.terminate();
  };
  const request = (message: { type: string; [field: string]: unknown }, withinMs = CHECKPOINT_WITHIN_MS) =>
    new Promise<void>((resolve, reject) => {
      if (gone !== undefined) return reject(new Error(`checkpoint worker ${gone}`));
      const timer = setTimeout(
        () => answer?.({ type: 'error', message: 'checkpoint worker did not answer' }),
        withinMs,
      );
      answer = (m) => {
        answer = undefined;
        clearTimeout(timer);
        if (m.type === 'done') resolve();
        else reject(new Error(m.message));
      };
      port.post(message);
    });
  try {
    await request({ type: 'start', path, faultPath: opts.faultPath });
  } catch (e) {
    end();
    throw e;
  }
  return {
    checkpoint: () =>
      request({ type: 'checkpoint' }).catch((e) => {
        // A worker that failed once is not trusted again: the caller starts a new one.
        end();
        throw e;
      }),
    async stop() {
      await request({ type: 'stop' }, STOP_WITHIN_MS).catch(() => {});
      end();
    },
  };
}
