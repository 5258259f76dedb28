import type { Statement } from './sqlite.ts';

export type Engine = 'sqlite' | 'postgres';

/**
 * A database connection as the stores see it, whichever engine is behind it: synchronous statements
 * with positional `?` parameters, and transactions. SQLite drivers are synchronous by nature;
 * PostgreSQL's is made so in postgres.ts.
 */
export interface SqlDriver {
  readonly engine: Engine;
  exec(sql: string): void;
  prepare<Row = Record<string, unknown>>(sql: string): Statement<Row>;
  /**
   * Runs fn in a transaction that writes (SQLite: BEGIN IMMEDIATE; PostgreSQL: SERIALIZABLE, run again
   * when it loses to a concurrent one); nested calls become savepoints.
   */
  transaction<T>(fn: () => T): T;
  /** Whether a transaction is open on this connection. */
  readonly inTransaction: boolean;
  /** A drizzle database (synchronous) on this same connection. */
  drizzle(schema: Record<string, unknown>): Promise<unknown>;
  close(): void;
}
