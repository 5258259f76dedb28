import { availableParallelism } from 'node:os';
import { runtime } from './runtime.ts';
import type { WorkerHandle } from './worker.ts';

/**
 * Runs argon2id in worker threads so a hash (tens of milliseconds of CPU) never blocks the event loop.
 * At most `size` hashes run at once, one per worker; further jobs wait in a queue, and one still waiting
 * after `queueTimeoutMs`, or arriving when `maxQueue` are already waiting, fails with PoolBusyError.
 */
export interface Argon2Params {
  parallelism: number;
  iterations: number;
  memorySize: number;
  hashLength: number;
}

export type Argon2Job =
  | { op: 'hash'; password: string; salt: Uint8Array; params: Argon2Params }
  | { op: 'verify'; password: string; encoded: string };

export type Argon2Reply = { ok: true; value: string | boolean } | { ok: false; message: string };

export interface Argon2PoolOptions {
  /** Workers, hence hashes at once; default one per core. */
  size?: number;
  /** How long a job may wait for a free worker; default 10 s. */
  queueTimeoutMs?: number;
  /** Jobs that may wait at once; default 64 per worker. */
  maxQueue?: number;
}

/** Every worker stayed busy for the whole wait: the caller should answer 503 with Retry-After. */
export class PoolBusyError extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super('password hashing is busy');
  }
}

export interface Argon2Pool {
  run(job: Argon2Job): Promise<string | boolean>;
  /** Ends every worker; queued jobs fail. */
  close(): Promise<void>;
}

interface Slot {
  worker: WorkerHandle;
  done?: (reply: Argon2Reply) => void;
}

interface Waiting {
  job: Argon2Job;
  resolve(value: string | boolean): void;
  reject(err: Error): void;
  timer: ReturnType<typeof setTimeout>;
}

export function createArgon2Pool(opts: Argon2PoolOptions = {}): Argon2Pool {
  const size = Math.max(1, opts.size ?? availableParallelism());
  const queueTimeoutMs = opts.queueTimeoutMs ?? 10_000;
  const maxQueue = opts.maxQueue ?? 64 * size;
  const retryAfter = Math.max(1, Math.ceil(queueTimeoutMs / 1000));
  const idle: Slot[] = [];
  const queue: Waiting[] = [];
  let started = 0;
  let closed = false;
  const all = new Set<Slot>();

  const spawn = (): Slot => {
    const slot: Slot = { worker: runtime.spawnWorker(new URL('./argon2.worker.ts', import.meta.url)) };
    slot.worker.onMessage((reply) => slot.done?.(reply as Argon2Reply));
    const lost = (why: string) => {
      if (!all.delete(slot)) return;
      started--;
      const i = idle.indexOf(slot);
      if (i >= 0) idle.splice(i, 1);
      slot.done?.({ ok: false, message: `argon2 worker ${why}` });
      next();
    };
    slot.worker.onExit(lost);
    all.add(slot);
    started++;
    return slot;
  };

  const dispatch = (slot: Slot, w: Waiting) => {
    clearTimeout(w.timer);
    slot.worker.ref();
    slot.done = (reply) => {
      slot.done = undefined;
      slot.worker.unref();
      if (all.has(slot)) idle.push(slot);
      if (reply.ok) w.resolve(reply.value);
      else w.reject(new Error(reply.message));
      next();
    };
    slot.worker.post(w.job);
  };

  function next(): void {
    while (queue.length && !closed) {
      const slot = idle.pop() ?? (started < size ? spawn() : undefined);
      if (!slot) return;
      dispatch(slot, queue.shift()!);
    }
  }

  return {
    run(job) {
      return new Promise((resolve, reject) => {
        if (closed) return reject(new Error('argon2 pool closed'));
        if (queue.length >= maxQueue) return reject(new PoolBusyError(retryAfter));
        const w: Waiting = {
          job,
          resolve,
          reject,
          timer: setTimeout(() => {
            const i = queue.indexOf(w);
            if (i >= 0) queue.splice(i, 1);
            reject(new PoolBusyError(retryAfter));
          }, queueTimeoutMs),
        };
        queue.push(w);
        next();
      });
    },
    async close() {
      closed = true;
      for (const w of queue.splice(0)) {
        clearTimeout(w.timer);
        w.reject(new Error('argon2 pool closed'));
      }
      for (const s of all) s.worker.terminate();
    },
  };
}
