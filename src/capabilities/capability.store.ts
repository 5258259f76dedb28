import { cacheVersion } from '../db/cache-versions.ts';
import type { Db } from '../db/open.ts';
import type { Override } from './catalogue.ts';

export interface CapabilityStore {
  /** Every override, ordered by country and document type. */
  listOverrides(): Override[];
  /** Inserts or replaces the override of one pair. */
  setOverride(o: Override): void;
  /** Changes whenever an override changed, whoever wrote it (triggers bump it). One statement. */
  version(): number;
}

export function createCapabilityStore(db: Db): CapabilityStore {
  return {
    listOverrides() {
      return db.sql
        .prepare<{ country: string; document_type: string; available: number; updated_at: number }>(
          'SELECT country, document_type, available, updated_at FROM capability_overrides ORDER BY country, document_type',
        )
        .all()
        .map((r) => ({
          country: r.country,
          documentType: r.document_type,
          available: Boolean(r.available),
          updatedAt: r.updated_at,
        }));
    },
    setOverride(o) {
      db.sql
        .prepare(
          `INSERT INTO capability_overrides (country, document_type, available, updated_at) VALUES (?, ?, ?, ?)
           ON CONFLICT(country, document_type) DO UPDATE SET available = excluded.available, updated_at = excluded.updated_at`,
        )
        .run(o.country, o.documentType, o.available ? 1 : 0, o.updatedAt);
    },
    version: () => cacheVersion(db, 'capabilities'),
  };
}
