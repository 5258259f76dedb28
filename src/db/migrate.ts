import type { Clock } from '../platform/clock.ts';
import { unix } from '../platform/clock.ts';
import { migrations as embedded } from './migrations.gen.ts';
import type { Db } from './open.ts';

/**
 * Applies the embedded migrations in order, each in its own transaction and recorded in
 * `_migrations`, so a re-run is a no-op and a crash mid-way leaves the database at a migration boundary.
 */
export function migrate(db: Db, clock: Clock, migrations = embedded): string[] {
  db.sql.exec(
    'CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY NOT NULL, applied_at INTEGER NOT NULL) STRICT',
  );
  const done = new Set(
    db.sql
      .prepare<{ name: string }>('SELECT name FROM _migrations')
      .all()
      .map((r) => r.name),
  );
  const applied: string[] = [];
  for (const m of migrations) {
    if (done.has(m.name)) continue;
    db.sql.transaction(() => {
      for (const stmt of m.sql.split('--> statement-breakpoint')) {
        if (stmt.trim()) db.sql.exec(stmt);
      }
      db.sql.prepare('INSERT INTO _migrations (name, applied_at) VALUES (?, ?)').run(m.name, unix(clock));
    });
    applied.push(m.name);
  }
  return applied;
}

export function pendingMigrations(db: Db, migrations = embedded): string[] {
  const exists = db.sql
    .prepare("SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = '_migrations'")
    .get();
  if (!exists) return migrations.map((m) => m.name);
  const done = new Set(
    db.sql
      .prepare<{ name: string }>('SELECT name FROM _migrations')
      .all()
      .map((r) => r.name),
  );
  return migrations.filter((m) => !done.has(m.name)).map((m) => m.name);
}
