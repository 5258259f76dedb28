import type { Db } from '../db/open.ts';

/**
 * The fixed-window request counters (`rate_limit_buckets`), keyed `<bucket>:<key>`: the API limits
 * (rate-limit.ts) and the portal's sign-up limit. Module functions: the token endpoint counts on
 * every exchange.
 */

// A window starts at the first request after the previous one ended, and the count restarts with it.
// RETURNING gives the new state without a second query. One statement counts several buckets of one
// window (a bound parameter, after the rows'): per bucket, a third of the cost of one statement each.
const hit = (rows: number) => `INSERT INTO rate_limit_buckets (key, window_start, count)
  VALUES ${Array.from({ length: rows }, () => '(?, ?, ?)').join(', ')}
  ON CONFLICT(key) DO UPDATE SET
    count = CASE WHEN rate_limit_buckets.window_start + ? > excluded.window_start
                 THEN rate_limit_buckets.count + excluded.count ELSE excluded.count END,
    window_start = CASE WHEN rate_limit_buckets.window_start + ? > excluded.window_start
                        THEN rate_limit_buckets.window_start ELSE excluded.window_start END
  RETURNING key, count, window_start`;
/** Statements of 32, 16, … 1 rows: a few prepared statements count any number of buckets. */
const ROWS = [32, 16, 8, 4, 2, 1];
const HITS = new Map(ROWS.map((rows) => [rows, hit(rows)]));
const DELETE_ENDED = 'DELETE FROM rate_limit_buckets WHERE key >= ? AND key < ? AND window_start + ? <= ?';
// Never counted against: its key has no bucket prefix, so no limit reads it and no cleanup removes it.
const PROBE = `INSERT INTO rate_limit_buckets (key, window_start, count) VALUES ('_readyz', 0, 0)
  ON CONFLICT(key) DO UPDATE SET count = 0`;

export interface BucketState {
  count: number;
  /** Unix seconds. */
  window_start: number;
}

/** The bucket after counting `n` requests against `key` at `now` in windows of `window` seconds. */
export function countHits(db: Db, key: string, now: number, n: number, window: number): BucketState {
  return countHitsOfMany(db, new Map([[key, n]]), now, window).get(key)!;
}

/** Each bucket after counting its requests (`counts`: key → requests) at `now` in windows of `window` s. */
export function countHitsOfMany(
  db: Db,
  counts: ReadonlyMap<string, number>,
  now: number,
  window: number,
): Map<string, BucketState> {
  const out = new Map<string, BucketState>();
  // Sorted: instances counting the same buckets on PostgreSQL lock their rows in the same order, so
  // they wait for each other instead of deadlocking.
  const keys = [...counts.keys()].sort();
  for (let i = 0; i < keys.length; ) {
    const rows = ROWS.find((r) => r <= keys.length - i)!;
    const params = keys.slice(i, i + rows).flatMap((k) => [k, now, counts.get(k)]);
    const counted = db.sql
      .prepare<BucketState & { key: string }>(HITS.get(rows)!)
      .all(...params, window, window);
    for (const { key, ...state } of counted) out.set(key, state);
    i += rows;
  }
  return out;
}

/** Deletes the buckets of `bucket` (keys `bucket:…`) whose window of `window` seconds ended by `now`. */
export function deleteEndedBuckets(db: Db, bucket: string, window: number, now: number): number {
  // ';' follows ':', so the range holds exactly the keys with the prefix (and uses the primary key).
  return db.sql.prepare(DELETE_ENDED).run(`${bucket}:`, `${bucket};`, window, now).changes;
}

/**
 * Throws unless the database takes writes: a temp table for the transaction machinery, and a row in
 * the main file (a temp table proves little about it).
 */
export function probeWrite(db: Db): void {
  db.sql.transaction(() => {
    db.sql.prepare('CREATE TEMP TABLE IF NOT EXISTS _ready (x INTEGER)').run();
    db.sql.prepare('INSERT INTO _ready (x) VALUES (1)').run();
    db.sql.prepare('DELETE FROM _ready').run();
  });
  db.sql.prepare(PROBE).run();
}
