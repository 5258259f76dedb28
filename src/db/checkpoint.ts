import type { Logger } from '../log.ts';
import { type CheckpointWorkerOptions, startCheckpointWorker, walBytes } from '../platform/checkpointer.ts';
import type { Db } from './open.ts';

// A checkpoint copies the newest version of each page in the log: once a second, the index pages a busy
// token endpoint rewrites on every commit are copied once, not up to ten times (docs/architecture.md).
const EVERY_MS = 1000;
/** SQLite's own default: checkpoint on the commit that takes the log past this many pages. */
const AUTOMATIC_PAGES = 1000;
/** After a failure a new worker is tried after 1 s, then 2 s, 4 s, … and at most every minute. */
const RETRY_FIRST_MS = 1000;
const RETRY_MAX_MS = 60_000;
/** The log size at which the worker starts: a server that has written little since start needs none. */
const START_AFTER_BYTES = 256 * 1024;

export interface BackgroundCheckpointOptions extends CheckpointWorkerOptions {
  /** The worker starts once the log file passes this size (default 256 KiB); 0 starts it at once. */
  startAfterBytes?: number;
  /** How often the log is checkpointed, and its size looked at while it waits to grow (default 1 s). */
  everyMs?: number;
}

/**
 * Moves WAL checkpoints off the serving connection (see platform/checkpointer.ts) for as long as the
 * server runs. The worker thread (about 5 MiB) starts once the log has grown: the log left by start-up
 * (migrations) is checkpointed here first, and until then SQLite's automatic checkpoint on commit stays.
 * Whenever the worker cannot start or fails, that automatic checkpoint takes over, so the log never
 * grows without bound, and a new worker is tried with a backoff until one checkpoints again. Each
 * change between working and failed is logged once. Resolves once the first worker has checkpointed
 * or failed, or at once when it waits for the log; the function it returns stops everything.
 */
export async function startBackgroundCheckpoints(
  db: Db,
  log: Logger,
  opts: BackgroundCheckpointOptions = {},
): Promise<() => Promise<void>> {
  // WAL checkpoints are SQLite's; PostgreSQL runs its own.
  if (db.engine === 'postgres' || db.path === ':memory:') return async () => {};
  const automatic = (on: boolean) => db.sql.exec(`PRAGMA wal_autocheckpoint = ${on ? AUTOMATIC_PAGES : 0}`);
  const everyMs = opts.everyMs ?? EVERY_MS;
  let state: 'starting' | 'working' | 'failed' = 'starting';
  let stopping = false;
  let interrupt = () => {};
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      interrupt = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  let settled!: () => void;
  const firstSettled = new Promise<void>((r) => {
    settled = r;
  });

  const working = () => {
    if (state === 'working') return;
    automatic(false);
    if (state === 'failed') log.info('background checkpoints resumed');
    state = 'working';
    settled();
  };
  const failed = (reason: string) => {
    if (state === 'working') {
      automatic(true);
      log.warn('background checkpoints failed; checkpointing on commit again', { reason });
    } else if (state === 'starting')
      log.warn('background checkpoints unavailable; checkpointing on commit', { reason });
    state = 'failed';
    settled();
  };

  const supervise = async () => {
    let retryMs = RETRY_FIRST_MS;
    while (!stopping) {
      try {
        const worker = await startCheckpointWorker(db.path, opts);
        try {
          while (!stopping) {
            await worker.checkpoint();
            working();
            retryMs = RETRY_FIRST_MS;
            await pause(everyMs);
          }
        } finally {
          await worker.stop();
        }
      } catch (e) {
        failed(e instanceof Error ? e.message : String(e));
        if (stopping) break;
        await pause(retryMs);
        retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
      }
    }
  };

  // Polled, not hooked: a stat a second costs nothing, and SQLite tells no one when the log grows.
  const logGrown = async () => {
    const startAfter = opts.startAfterBytes ?? START_AFTER_BYTES;
    if (startAfter === 0) return;
    // Start-up's own writes (a new database's migrations) would otherwise start the worker at once. If
    // another process holds the log, it stays, and the worker starts now as it did before.
    try {
      // TRUNCATE waits for every reader, this process's own snapshot included.
      db.reads.release();
      db.sql.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    } catch {}
    settled();
    while (!stopping && walBytes(db.path) <= startAfter) await pause(everyMs);
  };

  const running = logGrown().then(supervise);
  await firstSettled;
  return async () => {
    stopping = true;
    interrupt();
    await running;
    automatic(true);
  };
}
