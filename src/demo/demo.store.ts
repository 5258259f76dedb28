import { files } from '../platform/files.ts';
import { runtime } from '../platform/runtime.ts';
import type { SqliteDriver } from '../platform/sqlite.ts';

/** A signed-in demo session: what the callback learned, kept server-side behind an HTTP-only cookie. */
export interface DemoSession {
  id: string;
  sub: string;
  claims: Record<string, unknown>;
  accessToken: string;
  scopes: string[];
  /** Unix seconds; the access token's own expiry. */
  expiresAt: number;
}

export interface ReceivedWebhook {
  id: string;
  type: string;
  createdAt: string;
  receivedAt: number;
  data: unknown;
}

/** The demo's file, made readable by its owner only before first use: it holds tokens and claims. */
async function openPrivate(path: string): Promise<SqliteDriver> {
  await files.ensurePrivateFile(path);
  return runtime.openSqlite(path);
}

/** The demo's own SQLite file (never Verity's database). */
export async function openDemoDatabase(path: string): Promise<SqliteDriver> {
  const db = await openPrivate(path);
  db.exec('PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 5000;');
  return db;
}

export interface DemoLock {
  tryLock(): void;
  unlock(): void;
  close(): void;
}

/**
 * A connection of its own holding the demo file's write lock (BEGIN IMMEDIATE): held across awaits,
 * so no other statement may run on it. `tryLock` throws SQLITE_BUSY at once rather than waiting.
 */
export async function openDemoLock(path: string): Promise<DemoLock> {
  const db = await openPrivate(path);
  db.exec('PRAGMA busy_timeout = 0');
  return {
    tryLock: () => db.exec('BEGIN IMMEDIATE'),
    unlock: () => db.exec('ROLLBACK'),
    close: () => db.close(),
  };
}

/** The demo's own tables, in its own SQLite file (never Verity's database). */
export function createDemoStore(db: SqliteDriver) {
  db.exec(`
    CREATE TABLE IF NOT EXISTS demo_sessions (
      id TEXT PRIMARY KEY, sub TEXT NOT NULL, claims TEXT NOT NULL, access_token TEXT NOT NULL,
      scopes TEXT NOT NULL, expires_at INTEGER NOT NULL
    ) STRICT;
    CREATE TABLE IF NOT EXISTS demo_webhooks (
      id TEXT PRIMARY KEY, type TEXT NOT NULL, created_at TEXT NOT NULL, received_at INTEGER NOT NULL, data TEXT NOT NULL
    ) STRICT;
  `);
  return {
    saveSession(s: DemoSession): void {
      db.prepare(
        'INSERT INTO demo_sessions (id, sub, claims, access_token, scopes, expires_at) VALUES (?, ?, ?, ?, ?, ?)',
      ).run(s.id, s.sub, JSON.stringify(s.claims), s.accessToken, JSON.stringify(s.scopes), s.expiresAt);
    },
    findSession(id: string): DemoSession | undefined {
      const r = db
        .prepare<{
          id: string;
          sub: string;
          claims: string;
          access_token: string;
          scopes: string;
          expires_at: number;
        }>('SELECT * FROM demo_sessions WHERE id = ?')
        .get(id);
      return (
        r && {
          id: r.id,
          sub: r.sub,
          claims: JSON.parse(r.claims),
          accessToken: r.access_token,
          scopes: JSON.parse(r.scopes),
          expiresAt: r.expires_at,
        }
      );
    },
    deleteSession(id: string): void {
      db.prepare('DELETE FROM demo_sessions WHERE id = ?').run(id);
    },
    /** Persists the event id first; false when it was already received (a retry), so it is not processed twice. */
    recordWebhook(w: ReceivedWebhook): boolean {
      return (
        db
          .prepare(
            'INSERT OR IGNORE INTO demo_webhooks (id, type, created_at, received_at, data) VALUES (?, ?, ?, ?, ?)',
          )
          .run(w.id, w.type, w.createdAt, w.receivedAt, JSON.stringify(w.data)).changes === 1
      );
    },
    listWebhooks(limit = 100): ReceivedWebhook[] {
      return db
        .prepare<{ id: string; type: string; created_at: string; received_at: number; data: string }>(
          'SELECT * FROM demo_webhooks ORDER BY received_at DESC, rowid DESC LIMIT ?',
        )
        .all(limit)
        .map((r) => ({
          id: r.id,
          type: r.type,
          createdAt: r.created_at,
          receivedAt: r.received_at,
          data: JSON.parse(r.data),
        }));
    },
  };
}

export type DemoStore = ReturnType<typeof createDemoStore>;
