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
