import { statSync } from 'node:fs';
import type { CheckpointAnswer, CheckpointRequest } from './checkpoint.worker.ts';
import { runtime } from './runtime.ts';

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

/** A checkpoint not answered by then is a failure (e.g. a disk that stopped answering). */
const CHECKPOINT_WITHIN_MS = 30_000;
const STOP_WITHIN_MS = 2000;

/** Starts a worker with `path` open; rejects (the worker ended) if it cannot open it. */
export async function startCheckpointWorker(
  path: string,
  opts: CheckpointWorkerOptions = {},
): Promise<CheckpointWorker> {
  const port = runtime.spawnWorker(new URL('./checkpoint.worker.ts', import.meta.url));
  let answer: ((m: CheckpointAnswer) => void) | undefined;
  let gone: string | undefined;
  port.onMessage((m) => answer?.(m as CheckpointAnswer));
  port.onExit((reason) => {
    gone ??= reason;
    answer?.({ type: 'error', message: `checkpoint worker ${reason}` });
  });
  const end = () => {
    gone ??= 'ended';
    port.terminate();
  };
  const request = (message: CheckpointRequest, withinMs = CHECKPOINT_WITHIN_MS) =>
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

/** The size of the database's log file (`-wal`), 0 when there is none. */
export function walBytes(path: string): number {
  try {
    return statSync(`${path}-wal`).size;
  } catch {
    return 0;
  }
}
