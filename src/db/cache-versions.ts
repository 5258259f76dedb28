import type { Db } from './open.ts';

/** The in-memory caches whose tables bump a row of `cache_versions` (migrations/0003, 0018). */
export type CacheName = 'clients' | 'capabilities' | 'signing_keys' | 'persons';

// The name is written into the statement: a bound parameter made the lookup take half as long again.
const READ: Record<CacheName, string> = {
  clients: "SELECT version FROM cache_versions WHERE name = 'clients'",
  capabilities: "SELECT version FROM cache_versions WHERE name = 'capabilities'",
  signing_keys: "SELECT version FROM cache_versions WHERE name = 'signing_keys'",
  persons: "SELECT version FROM cache_versions WHERE name = 'persons'",
};

/**
 * A cache's version: one primary-key lookup, made once per snapshot of the turn (`db.reads.once`). A
 * cache keeps what it loaded while its version stays the same; triggers move the version on any write
 * to the tables behind it, whoever the writer. (Reading every version at once costs twice as much.)
 */
export function cacheVersion(db: Db, name: CacheName): number {
  return db.reads.once(
    READ[name],
    () => db.reads.prepare<{ version: number }>(READ[name]).get()?.version ?? -1,
  );
}

/** Where a context keeps a cache (in a slot of `ctx.caches`): what it holds and at which version. */
export interface HeldCache<T> {
  current?: { version: number; value: T };
}

/**
 * Caches with a version on SQLite only (migrations/0018 has no PostgreSQL counterpart): there reading
 * the version is a round trip, as much as what it would save, and a version row bumped by every write
 * to a person would make concurrent transactions that write people wait on that one row.
 */
const SQLITE_ONLY: ReadonlySet<CacheName> = new Set(['persons']);

/**
 * What a cache holds now: made anew by `fresh()` whenever its version moved or it holds more than
 * `max` entries (by `size`). Undefined inside a transaction of the serving connection, since what that
 * reads may yet be rolled back, and for a cache with no version on this engine: the caller reads the
 * database instead.
 */
export function heldCache<T>(
  db: Db,
  name: CacheName,
  held: HeldCache<T>,
  fresh: () => T,
  size: (value: T) => number,
  max: number,
): T | undefined {
  if (db.sql.inTransaction || (db.engine === 'postgres' && SQLITE_ONLY.has(name))) return undefined;
  const version = cacheVersion(db, name);
  let c = held.current;
  if (!c || c.version !== version || size(c.value) > max) held.current = c = { version, value: fresh() };
  return c.value;
}

/** `key`'s entry in `map`, loaded on a miss and kept if it exists; without a map, loaded every time. */
export function cachedEntry<T>(
  map: Map<string, T> | undefined,
  key: string,
  load: () => T | undefined,
): T | undefined {
  const hit = map?.get(key);
  if (hit !== undefined) return hit;
  const value = load();
  if (value !== undefined) map?.set(key, value);
  return value;
}
