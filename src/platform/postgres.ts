import {
  ANSWERED,
  LENGTH,
  type PgMessage,
  type PgReply,
  type PgRequest,
  TOO_BIG,
} from './postgres-protocol.ts';
import { runtime } from './runtime.ts';
import type { SqlDriver } from './sql-driver.ts';
import { bindable, type Statement, statementCache } from './sqlite.ts';
import { drizzleOverSyncClient } from './sync-drizzle.ts';

/**
 * PostgreSQL behind the same synchronous surface as SQLite, so every store runs unchanged on either
 * engine (docs/architecture.md#postgresql). The connection lives in a worker thread (postgres.worker.ts,
 * with the `postgres` driver); each statement is posted to it and this thread waits on a shared buffer
 * until the answer is written there. Statements are prepared once per connection and reused.
 */

/** A statement PostgreSQL refused, with its SQLSTATE (`23505` a unique violation, `40001` a conflict). */
export class PostgresError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
    readonly constraint: string | undefined,
  ) {
    super(message);
    this.name = 'PostgresError';
  }
}

/**
 * Serialization failures and deadlocks: the transaction lost to a concurrent one and may run again. A
 * lost connection is not one: the session's advisory locks went with it, which the caller may hold.
 */
export const isConflict = (e: unknown) =>
  e instanceof PostgresError && (e.code === '40001' || e.code === '40P01');
/**
 * A unique violation can be a conflict too: SERIALIZABLE reports a check-then-insert that lost to a
 * concurrent commit this way at times (PostgreSQL's manual, "Serializable Isolation Level"). A run
 * again settles which: a real duplicate is refused the same way the second time.
 */
const isUniqueViolation = (e: unknown) => e instanceof PostgresError && e.code === '23505';
const CONFLICT_ATTEMPTS = 10;
const sleeper = new Int32Array(new SharedArrayBuffer(4));
/** A short, growing, jittered pause before running a lost transaction again. */
const pause = (attempt: number) => Atomics.wait(sleeper, 0, 0, Math.random() * 2 ** Math.min(attempt, 6));

const INITIAL_BUFFER = 1 << 20;
/** How long a statement may take before the caller gives up on the connection's thread. */
const ANSWER_WITHIN_MS = 60_000;

/** `?` placeholders (outside quotes) become `$1`, `$2`…, so one SQL text serves both engines. */
export function numberPlaceholders(sql: string): string {
  let n = 0;
  return sql.replace(/'(?:[^']|'')*'|"(?:[^"]|"")*"|\?/g, (m) => (m === '?' ? `$${++n}` : m));
}

export async function openPostgres(
  url: string,
  /** How long a statement may take; for tests. */
  answerWithinMs = ANSWER_WITHIN_MS,
): Promise<SqlDriver> {
  const worker = runtime.spawnWorker(new URL('./postgres.worker.ts', import.meta.url));
  worker.ref();
  const control = new Int32Array(new SharedArrayBuffer(12));
  let data = new SharedArrayBuffer(INITIAL_BUFFER);
  const decoder = new TextDecoder();
  let lost: string | undefined;
  worker.onExit((reason) => {
    lost ??= reason;
  });
  // Awaited, not waited on: the worker's first messages need this thread's event loop.
  const opened = await new Promise<{ ready: boolean; message?: string }>((resolve) => {
    worker.onMessage((m) => resolve(m as { ready: boolean; message?: string }));
    worker.onExit((reason) => resolve({ ready: false, message: reason }));
    const open = { op: 'open', url, control: control.buffer as SharedArrayBuffer, data, seq: 0 } as const;
    worker.post(open satisfies PgMessage);
  });
  if (!opened.ready) {
    worker.terminate();
    throw new PostgresError(`cannot connect to PostgreSQL: ${opened.message}`, undefined, undefined);
  }

  let sent = 0;
  /** Posts a request and waits until the thread says it answered that one. */
  function ask(request: PgRequest): void {
    sent = (sent + 1) | 0;
    const seq = sent;
    worker.post({ ...request, seq } satisfies PgMessage);
    const deadline = performance.now() + answerWithinMs;
    for (let answered = Atomics.load(control, ANSWERED); answered !== seq; ) {
      const left = deadline - performance.now();
      if (left <= 0) {
        const message = `PostgreSQL did not answer within ${answerWithinMs / 1000} s${lost ? ` (${lost})` : ''}`;
        // Whether the statement took effect (a COMMIT, say) is unknown, and it may still hold locks:
        // the connection is given up rather than carried on in an unknown state.
        lost ??= message;
        worker.terminate();
        throw new PostgresError(message, undefined, undefined);
      }
      Atomics.wait(control, ANSWERED, answered, left);
      answered = Atomics.load(control, ANSWERED);
    }
  }

  function call(request: PgRequest): { rows: unknown[]; count: number } {
    if (lost)
      throw new PostgresError(`the PostgreSQL connection thread ended: ${lost}`, undefined, undefined);
    ask(request);
    // The answer did not fit: hand the thread a buffer that holds it.
    if (Atomics.load(control, TOO_BIG)) {
      data = new SharedArrayBuffer(Atomics.load(control, LENGTH) * 2);
      ask({ op: 'grow', data });
    }
    const length = Atomics.load(control, LENGTH);
    const reply = JSON.parse(decoder.decode(new Uint8Array(data, 0, length).slice())) as PgReply;
    if (!reply.ok) {
      // The statement goes with the message: without it a refusal is hard to place.
      const statement = 'sql' in request ? ` [in: ${request.sql.replace(/\s+/g, ' ').slice(0, 300)}]` : '';
      throw new PostgresError(`${reply.message}${statement}`, reply.code, reply.constraint);
    }
    return reply;
  }

  const statement = (text: string, arrays = false): Statement<unknown> => {
    const sql = numberPlaceholders(text);
    const op = arrays ? 'values' : 'query';
    return {
      get: (...p) => call({ op, sql, params: bindable(p), tx: depth > 0 }).rows[0],
      all: (...p) => call({ op, sql, params: bindable(p), tx: depth > 0 }).rows,
      run: (...p) => ({ changes: call({ op, sql, params: bindable(p), tx: depth > 0 }).count }),
    };
  };
  const exec = (sql: string) => void call({ op: 'exec', sql, tx: depth > 0 });

  let depth = 0;
  /**
   * Transactions are SERIALIZABLE, so they keep SQLite's guarantee that each one sees the database as
   * if it ran alone; one that loses to a concurrent one is run again from the start, a few times
   * (callers keep effects outside the database for after the commit, as they do for the write batch).
   */
  function transaction<T>(fn: () => T, begin = 'BEGIN ISOLATION LEVEL SERIALIZABLE'): T {
    if (depth > 0) {
      const savepoint = `sp${depth}`;
      exec(`SAVEPOINT ${savepoint}`);
      depth++;
      try {
        const result = fn();
        exec(`RELEASE SAVEPOINT ${savepoint}`);
        return result;
      } catch (e) {
        exec(`ROLLBACK TO SAVEPOINT ${savepoint}; RELEASE SAVEPOINT ${savepoint}`);
        throw e;
      } finally {
        depth--;
      }
    }
    for (let attempt = 1; ; attempt++) {
      call({ op: 'exec', sql: begin, begins: true });
      depth++;
      try {
        const result = fn();
        exec('COMMIT');
        return result;
      } catch (e) {
        try {
          exec('ROLLBACK');
        } catch {
          // The connection itself failed; the first error is the one to report.
        }
        const lost = isConflict(e) || (isUniqueViolation(e) && attempt === 1);
        if (!lost || attempt >= CONFLICT_ATTEMPTS) throw e;
        pause(attempt);
      } finally {
        depth--;
      }
    }
  }

  return {
    engine: 'postgres',
    exec,
    prepare: statementCache((sql) => statement(sql)),
    transaction: (fn) => transaction(fn),
    get inTransaction() {
      return depth > 0;
    },
    drizzle: (schema) =>
      drizzleOverSyncClient(schema, {
        prepare: (sql: string) => ({ ...statement(sql), raw: () => statement(sql, true) }),
        transaction: (fn) => transaction(fn),
      }),
    close() {
      if (lost) return;
      try {
        call({ op: 'close' });
      } finally {
        worker.terminate();
        lost = 'closed';
      }
    },
  };
}
