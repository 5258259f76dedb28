import { randomToken } from '../crypto/tokens.ts';
import type { Db } from '../db/open.ts';

export type InstanceSecretName = 'pairwise' | 'webhook-secrets';

/** The row that names the database (see `databaseId`); not a check of a secret. */
const DATABASE_ID = 'database';

export function createInstanceCheckStore(db: Db) {
  return {
    /** Recorded check values by name; none for a database written before checks were recorded. */
    all(): Map<InstanceSecretName, string> {
      // Only an old SQLite database can lack the table; PostgreSQL's first migration has it.
      const hasTable =
        db.engine === 'postgres' ||
        db.sql
          .prepare<{ n: number }>(
            "SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'instance_secret_checks'",
          )
          .get()!.n > 0;
      if (!hasTable) return new Map();
      const rows = db.sql
        .prepare<{ name: InstanceSecretName; check: string }>(
          'SELECT name, "check" FROM instance_secret_checks WHERE name <> ?',
        )
        .all(DATABASE_ID);
      return new Map(rows.map((r) => [r.name, r.check]));
    },
    /** Records the checks not yet recorded (a concurrent start may have recorded them first). */
    record(checks: Map<InstanceSecretName, string>, now: number): void {
      db.sql.transaction(() => {
        const insert = db.sql.prepare(
          'INSERT INTO instance_secret_checks (name, "check", recorded_at) VALUES (?, ?, ?) ON CONFLICT(name) DO NOTHING',
        );
        for (const [name, check] of checks) insert.run(name, check, now);
      });
    },
    /**
     * A random id for this database, made the first time it is asked for. Its key files carry it, so
     * a sweep of the keys directory tells this database's crashed writes from another's keys.
     */
    databaseId(now: number): string {
      db.sql
        .prepare(
          'INSERT INTO instance_secret_checks (name, "check", recorded_at) VALUES (?, ?, ?) ON CONFLICT(name) DO NOTHING',
        )
        .run(DATABASE_ID, randomToken(), now);
      return db.sql
        .prepare<{ check: string }>('SELECT "check" FROM instance_secret_checks WHERE name = ?')
        .get(DATABASE_ID)!.check;
    },
    /**
     * Whether the database holds anything an instance secret was used for: a production person, an
     * application, a consent, a webhook endpoint, or a recorded check. The seeded sandbox personas alone
     * do not count: no application has seen a `sub` of theirs yet.
     */
    inUse(): boolean {
      return (
        db.sql
          .prepare<{ n: number }>(
            `SELECT EXISTS (SELECT 1 FROM persons WHERE environment = 'production')
               OR EXISTS (SELECT 1 FROM applications) OR EXISTS (SELECT 1 FROM consents)
               OR EXISTS (SELECT 1 FROM webhook_endpoints) AS n`,
          )
          .get()!.n === 1 || this.all().size > 0
      );
    },
  };
}
