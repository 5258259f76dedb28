import { availableParallelism } from 'node:os';
import { nextTurn } from './next-turn.ts';
import type { RsaPrivateKey } from './rs256.ts';
import { runtime } from './runtime.ts';
import { decodeReply, encodeRequest, type SigningReply, type SigningRequest } from './signing-messages.ts';
import type { WorkerHandle } from './worker.ts';

/**
 * RS256 signatures spread over a bounded pool of worker threads, so that the token endpoint, bound by
 * its signature, uses every core (docs/architecture.md#cores). The caller decides the key of every
 * signature; a worker is sent a key's private JWK the first time it is to sign with it, and forgets
 * every key that a later message does not use. A worker that fails, or does not answer in time, is
 * ended, its signatures are made on the calling thread, and it is started again after a backoff. With
 * no threads, every signature is made on the calling thread.
 */
export interface PoolKey {
  kid: string;
  jwk: JsonWebKey;
  /** The same key, imported on the calling thread, for signing there. */
  key: RsaPrivateKey;
}

export interface SigningPool {
  /** RS256 over `input` (see Runtime.signRs256), made with `key`. */
  sign(key: PoolKey, input: string): Promise<string>;
  /** Ends every worker; signatures in flight and any asked for later are made on the calling thread. */
  close(): void;
}

export interface SigningPoolOptions {
  threads: number;
  /** For tests: how workers are started. */
  spawn?: (url: URL) => WorkerHandle;
  /** The first wait before a lost worker is started again; it doubles, up to a minute. Default 1 s. */
  restartAfterMs?: number;
  /** A worker that has not answered a message by then is treated as lost. Default 10 s. */
  answerWithinMs?: number;
  /** Told why a worker was lost. */
  onWorkerLost?: (reason: string) => void;
}

/** `auto`: one thread per core, or none on a single core (a hop to a worker would only add cost). */
export function signingThreads(setting: number | 'auto'): number {
  if (setting !== 'auto') return setting;
  const cores = availableParallelism();
  return cores > 1 ? cores : 0;
}

const RESTART_MAX_MS = 60_000;

interface Job {
  key: PoolKey;
  input: string;
  resolve(signature: string): void;
  reject(err: unknown): void;
}

interface Batch {
  id: number;
  jobs: Job[];
  timer: ReturnType<typeof setTimeout>;
}

interface Slot {
  worker?: WorkerHandle;
  /** The kids the worker holds a key for. */
  held: Set<string>;
  /** Sent and not yet answered; a worker answers in order. */
  inflight: Batch[];
  /** Jobs in `inflight`: the least loaded worker gets the next one. */
  outstanding: number;
  restartAt: number;
  restartAfterMs: number;
}

function signInline(job: Job): void {
  try {
    job.resolve(runtime.signRs256(job.key.key, job.input));
  } catch (e) {
    job.reject(e);
  }
}

export function createSigningPool(opts: SigningPoolOptions): SigningPool {
  const threads = Math.max(0, opts.threads);
  if (threads === 0) {
    return { sign: async (key, input) => runtime.signRs256(key.key, input), close() {} };
  }
  const spawn = opts.spawn ?? runtime.spawnWorker;
  const restartAfterMs = opts.restartAfterMs ?? 1000;
  const answerWithinMs = opts.answerWithinMs ?? 10_000;
  const slots: Slot[] = Array.from({ length: threads }, () => ({
    held: new Set<string>(),
    inflight: [],
    outstanding: 0,
    restartAt: 0,
    restartAfterMs,
  }));
  let queued: Job[] = [];
  let lastId = 0;
  let closed = false;

  const lost = (slot: Slot, worker: WorkerHandle, reason: string) => {
    if (slot.worker !== worker) return;
    slot.worker = undefined;
    slot.held.clear();
    worker.terminate();
    if (!closed) {
      opts.onWorkerLost?.(reason);
      slot.restartAt = performance.now() + slot.restartAfterMs;
      slot.restartAfterMs = Math.min(slot.restartAfterMs * 2, RESTART_MAX_MS);
    }
    slot.outstanding = 0;
    for (const batch of slot.inflight.splice(0)) {
      clearTimeout(batch.timer);
      for (const job of batch.jobs) signInline(job);
    }
  };

  const answered = (slot: Slot, worker: WorkerHandle, reply: SigningReply) => {
    const batch = slot.inflight[0];
    if (slot.worker !== worker || batch?.id !== reply.id) return lost(slot, worker, 'answered out of turn');
    slot.inflight.shift();
    clearTimeout(batch.timer);
    slot.outstanding -= batch.jobs.length;
    slot.restartAfterMs = restartAfterMs;
    if (slot.inflight.length === 0) worker.unref();
    batch.jobs.forEach((job, i) => {
      const signature = reply.signatures[i];
      if (typeof signature === 'string') job.resolve(signature);
      else signInline(job);
    });
  };

  /** Whether the slot has a worker, starting one if its backoff is over. */
  const ready = (slot: Slot): boolean => {
    if (slot.worker) return true;
    if (closed || performance.now() < slot.restartAt) return false;
    const worker = spawn(new URL('./signing.worker.ts', import.meta.url));
    slot.worker = worker;
    worker.onMessage((m) => answered(slot, worker, decodeReply(m as string)));
    worker.onExit((reason) => lost(slot, worker, reason));
    return true;
  };

  const send = (slot: Slot, jobs: Job[]) => {
    const worker = slot.worker!;
    const kids = new Set<string>();
    const add: SigningRequest['add'] = [];
    for (const { key } of jobs) {
      if (kids.has(key.kid)) continue;
      kids.add(key.kid);
      if (!slot.held.has(key.kid)) add.push([key.kid, key.jwk]);
    }
    const drop = [...slot.held].filter((kid) => !kids.has(kid));
    slot.held = kids;
    const id = ++lastId;
    const timer = setTimeout(() => lost(slot, worker, 'did not answer'), answerWithinMs);
    if (slot.inflight.length === 0) worker.ref();
    slot.inflight.push({ id, jobs, timer });
    worker.post(encodeRequest({ id, add, drop, jobs: jobs.map((j) => [j.key.kid, j.input]) }));
  };

  // Everything asked for in one turn of the event loop goes out together: one message per worker, each
  // job to the worker with the fewest outstanding.
  const flush = () => {
    const jobs = queued;
    queued = [];
    const live = slots.filter(ready);
    if (live.length === 0) {
      for (const job of jobs) signInline(job);
      return;
    }
    const shares = new Map<Slot, Job[]>();
    for (const job of jobs) {
      const slot = live.reduce((a, b) => (b.outstanding < a.outstanding ? b : a));
      slot.outstanding++;
      const share = shares.get(slot);
      if (share) share.push(job);
      else shares.set(slot, [job]);
    }
    for (const [slot, share] of shares) send(slot, share);
  };

  return {
    sign(key, input) {
      return new Promise((resolve, reject) => {
        const job = { key, input, resolve, reject };
        if (closed) return signInline(job);
        queued.push(job);
        if (queued.length === 1) nextTurn(flush);
      });
    },
    close() {
      closed = true;
      for (const slot of slots) if (slot.worker) lost(slot, slot.worker, 'closed');
    },
  };
}
