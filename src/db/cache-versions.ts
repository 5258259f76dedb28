import type { Db } from './open.ts';

/** The in-memory caches whose tables bump a row of `cache_versions` (migrations/0003). */
export type CacheName = 'clients' | 'capabilities' | 'signing_keys';

export type CacheVersions = Record<CacheName, number>;

const READ = 'SELECT name, version FROM cache_versions';

/**
 * Every cache's version, in one statement. A cache keeps what it loaded while its version stays the
 * same; triggers move the version on any write to the tables behind it, whoever the writer.
 */
export function cacheVersions(db: Db): CacheVersions {
  const versions: CacheVersions = { clients: -1, capabilities: -1, signing_keys: -1 };
  for (const r of db.sql.prepare<{ name: CacheName; version: number }>(READ).all())
    versions[r.name] = r.version;
  return versions;
}
