import postgres from 'postgres';
import {
  ANSWERED,
  LENGTH,
  LOST_BEFORE_SENT,
  type PgMessage,
  type PgReply,
  TOO_BIG,
} from './postgres-protocol.ts';
import { runtime } from './runtime.ts';

// The thread that owns the PostgreSQL connection (postgres.ts): it runs each statement it is sent and
// writes the answer, as JSON, into the shared buffer its caller waits on. A build entry point.
const port = runtime.parentPort();
let sql: postgres.Sql | undefined;
let control: Int32Array;
let data: Uint8Array;
let pending: Uint8Array | undefined;
const encoder = new TextEncoder();
/**
 * Bumped whenever the driver's connection closes. The driver opens a new one for the next statement
 * without a word, which inside a transaction would run the rest of it, and its COMMIT, outside any:
 * half a transaction committed. So a transaction is bound to the connection it began on.
 */
let generation = 0;
let began = -1;

/** Says that request `seq` is answered, once the buffer and the length hold its answer. */
function answered(seq: number): void {
  Atomics.store(control, ANSWERED, seq);
  Atomics.notify(control, ANSWERED);
}

function answer(seq: number, reply: PgReply): void {
  const bytes = encoder.encode(JSON.stringify(reply));
  // Too big for the buffer: the caller sends a bigger one, and the answer goes there (see 'grow').
  const tooBig = bytes.length > data.length;
  if (tooBig) pending = bytes;
  else data.set(bytes);
  Atomics.store(control, LENGTH, bytes.length);
  Atomics.store(control, TOO_BIG, tooBig ? 1 : 0);
  answered(seq);
}

port.onMessage(async (message) => {
  const m = message as PgMessage;
  if (m.op === 'open') {
    control = new Int32Array(m.control);
    data = new Uint8Array(m.data);
    sql = postgres(m.url, {
      max: 1,
      prepare: true,
      idle_timeout: 0,
      // Kept for good: the driver otherwise replaces it every 30-60 minutes, in a transaction or not,
      // and with it the session's advisory locks.
      max_lifetime: null,
      connect_timeout: 10,
      // A statement waits for another's lock at most this long, as SQLite's busy_timeout: this thread's
      // caller is blocked meanwhile, so an unbounded wait (a lock held by this same process) would hang it.
      connection: { lock_timeout: 5000 },
      onnotice: () => {},
      onclose: () => {
        generation++;
      },
      // As SQLite answers: 64-bit integers (counts, times) and numerics as numbers, booleans as 1/0.
      types: {
        int8: { to: 20, from: [20], serialize: String, parse: Number },
        numeric: { to: 1700, from: [1700], serialize: String, parse: Number },
        bool: {
          to: 16,
          from: [16],
          serialize: (x: unknown) => (x ? 't' : 'f'),
          parse: (x: string) => (x === 't' ? 1 : 0),
        },
      },
    });
    // Said by message, the one time the caller awaits rather than waits: it connects first.
    try {
      await sql`SELECT 1`;
      port.post({ ready: true });
    } catch (e) {
      port.post({ ready: false, message: (e as Error).message });
    }
    return;
  }
  if (m.op === 'grow') {
    data = new Uint8Array(m.data);
    data.set(pending!);
    pending = undefined;
    Atomics.store(control, TOO_BIG, 0);
    answered(m.seq);
    return;
  }
  if (m.op === 'close') {
    await sql?.end({ timeout: 1 });
    answer(m.seq, { ok: true, rows: [], count: 0 });
    return;
  }
  if (m.tx && began !== generation) {
    const message = 'the connection to PostgreSQL was lost inside a transaction';
    answer(m.seq, { ok: false, message, code: LOST_BEFORE_SENT });
    return;
  }
  try {
    const q =
      m.op === 'exec'
        ? sql!.unsafe(m.sql)
        : sql!.unsafe(m.sql, m.params as postgres.ParameterOrJSON<never>[], { prepare: true });
    const result = m.op === 'values' ? await q.values() : await q;
    if (m.op === 'exec' && m.begins) began = generation;
    answer(m.seq, {
      ok: true,
      rows: m.op === 'exec' ? [] : (result as unknown as unknown[]),
      count: result.count ?? 0,
    });
  } catch (e) {
    const err = e as { message?: string; code?: string; constraint_name?: string };
    answer(m.seq, {
      ok: false,
      message: err.message ?? String(e),
      code: err.code,
      constraint: err.constraint_name,
    });
  }
});
