import type { Clock } from '../platform/clock.ts';
import type { Db } from './open.ts';

/**
 * Seconds this process's clock is ahead of the database server's (negative: behind), read halfway
 * through the round trip. PostgreSQL only: a SQLite database shares its process's machine and clock.
 */
export function clockSkewSeconds(db: Db, clock: Clock): number | undefined {
  if (db.engine !== 'postgres') return undefined;
  const before = clock.now().getTime();
  const { at } = db.sql
    .prepare<{ at: number | string }>('SELECT extract(epoch FROM clock_timestamp()) * 1000 AS at')
    .get()!;
  const after = clock.now().getTime();
  return ((before + after) / 2 - Number(at)) / 1000;
}
