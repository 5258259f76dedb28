import { isBun } from './runtime.ts';

/**
 * Checkpoints a WAL database from a worker thread with its own connection. A checkpoint copies the
 * log back into the database file and fsyncs both; left to SQLite's automatic checkpoint it runs on
 * whichever connection commits, so every request waits behind the fsync (tens of milliseconds on a
 * VM disk) once every thousand pages. PASSIVE never blocks the writer: it copies what no reader still
 * needs and leaves the rest for the next round.
 */
export interface Checkpointer {
  stop(): Promise<void>;
}

type Message = { type: 'ready' } | { type: 'stopped' } | { type: 'error'; message: string };

// The same loop for both runtimes; only the driver differs (`open` is defined before it).
const LOOP = `
let db;
let timer;
function start(path, everyMs) {
  db = open(path);
  db.exec('PRAGMA busy_timeout = 5000');
  timer = setInterval(() => {
    try {
      db.exec('PRAGMA wal_checkpoint(PASSIVE)');
    } catch (e) {
      send({ type: 'error', message: String(e && e.message || e) });
    }
  }, everyMs);
  send({ type: 'ready' });
}
function stop() {
  clearInterval(timer);
  try { db.exec('PRAGMA wal_checkpoint(PASSIVE)'); } catch {}
  db.close();
  send({ type: 'stopped' });
}
`;

const BUN_WORKER = `
const { Database } = await import('bun:sqlite');
const open = (path) => new Database(path);
const send = (m) => postMessage(m);
${LOOP}
self.onmessage = (e) => (e.data.type === 'start' ? start(e.data.path, e.data.everyMs) : stop());
`;

const NODE_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const open = (path) => new Database(path);
const send = (m) => parentPort.postMessage(m);
${LOOP}
parentPort.on('message', (m) => (m.type === 'start' ? start(m.path, m.everyMs) : stop()));
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

/**
 * Starts checkpointing `path` every `everyMs`. Resolves once the worker has the database open, or
 * rejects if it cannot start; `onFailure` is told if it stops working later.
 */
export async function startCheckpointer(
  path: string,
  everyMs: number,
  onFailure: (reason: string) => void,
): Promise<Checkpointer> {
  const port = await spawn();
  let stopping = false;
  let resolveStopped: () => void = () => {};
  const stopped = new Promise<void>((r) => {
    resolveStopped = r;
  });
  await new Promise<void>((resolve, reject) => {
    let ready = false;
    port.onMessage((m) => {
      if (m.type === 'ready') {
        ready = true;
        resolve();
      } else if (m.type === 'stopped') resolveStopped();
      else if (m.type === 'error') onFailure(m.message);
    });
    port.onExit((reason) => {
      resolveStopped();
      if (!ready) reject(new Error(`checkpoint worker did not start: ${reason}`));
      else if (!stopping) onFailure(reason);
    });
    port.post({ type: 'start', path, everyMs });
  });
  return {
    async stop() {
      stopping = true;
      port.post({ type: 'stop' });
      await Promise.race([stopped, new Promise((r) => setTimeout(r, 2000))]);
      port.terminate();
    },
  };
}
