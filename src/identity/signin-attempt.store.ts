import type { Db } from '../db/open.ts';

/**
 * Failed sign-ins per key in fixed windows (`signin_attempts`); the keys and limits are the throttle's
 * (signin-throttle.ts). A window of `window` seconds starts at the first failure after the previous
 * one ended.
 */
export function createSigninAttemptStore(db: Db, window: number) {
  return {
    /** The failures counted against `key` in the window running at `now`. */
    failures(key: string, now: number): number {
      const row = db.sql
        .prepare<{ failures: number }>(
          'SELECT failures FROM signin_attempts WHERE key = ? AND window_start > ?',
        )
        .get(key, now - window);
      return row?.failures ?? 0;
    },

    /** Counts one failure against each key, in one transaction. */
    recordFailure(keys: readonly string[], now: number): void {
      const bump = db.sql.prepare(
        `INSERT INTO signin_attempts (key, window_start, failures) VALUES (?, ?, 1)
         ON CONFLICT(key) DO UPDATE SET
           failures = CASE WHEN signin_attempts.window_start <= ? THEN 1 ELSE signin_attempts.failures + 1 END,
           window_start = CASE WHEN signin_attempts.window_start <= ? THEN excluded.window_start
             ELSE signin_attempts.window_start END`,
      );
      db.sql.transaction(() => {
        for (const key of keys) bump.run(key, now, now - window, now - window);
      });
    },

    clear(keys: readonly string[]): void {
      const clear = db.sql.prepare('DELETE FROM signin_attempts WHERE key = ?');
      for (const key of keys) clear.run(key);
    },

    /** Deletes the counts whose window ended by `now`. */
    purgeExpired(now: number): number {
      return db.sql.prepare('DELETE FROM signin_attempts WHERE window_start <= ?').run(now - window).changes;
    },
  };
}
