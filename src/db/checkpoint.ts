import type { Logger } from '../log.ts';
import { type CheckpointWorkerOptions, startCheckpointWorker } from '../platform/checkpointer.ts';
import type { Db } from './open.ts';

const EVERY_MS = 100;
/** SQLite's own default: checkpoint on the commit that takes the log past this many pages. */
const AUTOMATIC_PAGES = 1000;
/** After a failure a new worker is tried after 1 s, then 2 s, 4 s, … and at most every minute. */
const RETRY_FIRST_MS = 1000;
const RETRY_MAX_MS = 60_000;

/**
 * Moves WAL checkpoints off the serving connection (see platform/checkpointer.ts) for as long as the
 * server runs. Whenever the worker cannot start or fails, SQLite's automatic checkpoint on commit takes
 * over, so the log never grows without bound, and a new worker is tried with a backoff until one
 * checkpoints again. Each change between working and failed is logged once. Resolves once the first
 * worker has checkpointed or failed; the function it returns stops everything.
 */
export async function startBackgroundCheckpoints(
  db: Db,
  log: Logger,
  opts: CheckpointWorkerOptions = {},
): Promise<() => Promise<void>> {
  // PostgreSQL checkpoints by itself; there is no SQLite log to look after.
  if (db.path === ':memory:' || db.engine === 'postgres') return async () => {};
  const automatic = (on: boolean) => db.sql.exec(`PRAGMA wal_autocheckpoint = ${on ? AUTOMATIC_PAGES : 0}`);
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
            await pause(EVERY_MS);
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

  const running = supervise();
  await firstSettled;
  return async () => {
    stopping = true;
    interrupt();
    await running;
    automatic(true);
  };
}
