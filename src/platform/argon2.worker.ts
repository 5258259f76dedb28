import { argon2id, argon2Verify } from 'hash-wasm';
import type { Argon2Job, Argon2Reply } from './argon2-pool.ts';
import { runtime } from './runtime.ts';

// One argon2id computation at a time, off the main thread. The pool (argon2-pool.ts) sends a job only
// when this worker is idle. Started by `runtime.spawnWorker`; a build entry point.
const port = runtime.parentPort();
port.onMessage(async (message) => {
  const job = message as Argon2Job;
  let reply: Argon2Reply;
  try {
    const value =
      job.op === 'hash'
        ? await argon2id({ ...job.params, password: job.password, salt: job.salt, outputType: 'encoded' })
        : await argon2Verify({ password: job.password, hash: job.encoded });
    reply = { ok: true, value };
  } catch (e) {
    reply = { ok: false, message: e instanceof Error ? e.message : String(e) };
  }
  port.post(reply);
});
