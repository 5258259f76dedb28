// What the serving thread (postgres.ts) and the PostgreSQL connection's thread (postgres.worker.ts)
// say to each other: numbered requests by message, answers through shared memory.

export type PgRequest =
  | { op: 'open'; url: string; control: SharedArrayBuffer; data: SharedArrayBuffer }
  | { op: 'grow'; data: SharedArrayBuffer }
  | { op: 'close' }
  /**
   * `begins`: the statement opens a transaction, bound to the connection it runs on. `tx`: the
   * statement belongs to the open transaction, and is refused if that connection has since closed.
   */
  | { op: 'exec'; sql: string; begins?: boolean; tx?: boolean }
  | { op: 'query' | 'values'; sql: string; params: unknown[]; tx?: boolean };

/**
 * The code of a statement refused unsent: its transaction's connection was lost, and the server rolled
 * back what was sent on it, so nothing of the transaction took effect. It is not run again: the
 * session's advisory locks, which its caller may hold, were lost with the connection.
 */
export const LOST_BEFORE_SENT = 'verity-lost-before-sent';

/** A request as posted: numbered, so that its answer is known for its own. */
export type PgMessage = PgRequest & { seq: number };

export type PgReply =
  | { ok: true; rows: unknown[]; count: number }
  | { ok: false; message: string; code?: string; constraint?: string };

/**
 * The shared control words. ANSWERED is the number of the request answered last, written after its
 * answer: a wait can wake before it (a thread starting or ending anywhere in the process wakes it,
 * under Bun), and only this number says the answer in the buffer is the awaited one.
 */
export const ANSWERED = 0;
/** The answer's length in bytes. */
export const LENGTH = 1;
/** 1 when the answer did not fit the buffer: the caller hands over a bigger one ('grow'). */
export const TOO_BIG = 2;
