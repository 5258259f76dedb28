import postgres from 'postgres';
import type { PgReply, PgRequest } from './postgres.ts';
import { runtime } from './runtime.ts';

// The thread that owns the PostgreSQL connection (postgres.ts): it runs each statement it is sent and
// writes the answer, as JSON, into the shared buffer its caller waits on. A build entry point.
const port = runtime.parentPort();
let sql: postgres.Sql | undefined;
let control: Int32Array;
let data: Uint8Array;
let pending: Uint8Array | undefined;
const encoder = new TextEncoder();

function answer(reply: PgReply): void {
  const bytes = encoder.encode(JSON.stringify(reply));
  if (bytes.length > data.length) {
    // Too big for the buffer: the caller sends a bigger one, and the answer goes there (see 'grow').
    pending = bytes;
    Atomics.store(control, 1, bytes.length);
    Atomics.store(control, 0, 2);
  } else {
    data.set(bytes);
    Atomics.store(control, 1, bytes.length);
    Atomics.store(control, 0, 1);
  }
  Atomics.notify(control, 0);
}

port.onMessage(async (message) => {
  const m = message as PgRequest;
  if (m.op === 'open') {
    control = new Int32Array(m.control);
    data = new Uint8Array(m.data);
    sql = postgres(m.url, {
      max: 1,
      prepare: true,
      idle_timeout: 0,
      connect_timeout: 10,
      // A statement waits for another's lock at most this long, as SQLite's busy_timeout: this thread's
      // caller is blocked meanwhile, so an unbounded wait (a lock held by this same process) would hang it.
      connection: { lock_timeout: 5000 },
      onnotice: () => {},
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
    Atomics.store(control, 0, 1);
    Atomics.notify(control, 0);
    return;
  }
  if (m.op === 'close') {
    await sql?.end({ timeout: 1 });
    answer({ ok: true, rows: [], count: 0 });
    return;
  }
  try {
    const q =
      m.op === 'exec'
        ? sql!.unsafe(m.sql)
        : sql!.unsafe(m.sql, m.params as postgres.ParameterOrJSON<never>[], { prepare: true });
    const result = m.op === 'values' ? await q.values() : await q;
    answer({
      ok: true,
      rows: m.op === 'exec' ? [] : (result as unknown as unknown[]),
      count: result.count ?? 0,
    });
  } catch (e) {
    const err = e as { message?: string; code?: string; constraint_name?: string };
    answer({ ok: false, message: err.message ?? String(e), code: err.code, constraint: err.constraint_name });
  }
});
