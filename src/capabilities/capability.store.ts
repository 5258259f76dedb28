import type { Db } from '../db/open.ts';
import type { Override } from './catalogue.ts';

/** Writes made through this process's own connection, which `PRAGMA data_version` does not count. */
const localWrites = new WeakMap<Db, number>();

export interface CapabilityStore {
  /** Every override, ordered by country and document type. */
  listOverrides(): Override[];
  /** Inserts or replaces the override of one pair. */
  setOverride(o: Override): void;
  /**
   * Changes whenever the overrides may have changed: another connection (the CLI) committed to the
   * database, or this process wrote an override. One pragma read, no table read.
   */
  version(): string;
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
      localWrites.set(db, (localWrites.get(db) ?? 0) + 1);
    },
    version() {
      const row = db.sql.prepare<{ data_version: number }>('PRAGMA data_version').get();
      return `${row?.data_version ?? 0}:${localWrites.get(db) ?? 0}`;
    },
  };
}
