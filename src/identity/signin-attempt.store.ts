import type { Db } from '../db/open.ts';

/**
 * Failed sign-ins per key in fixed windows (`signin_attempts`); the keys and limits are the throttle's
 * (signin-throttle.ts). A window of `window` seconds starts at the first failure after the previous
 * one ended.
 */
export function createSigninAttemptStore(db: Db, window: number) {
  /** The failures counted against `key` in the window running at `now`. */
  const failures = (key: string, now: number): number =>
    db.sql
      .prepare<{ failures: number }>(
        'SELECT failures FROM signin_attempts WHERE key = ? AND window_start > ?',
      )
      .get(key, now - window)?.failures ?? 0;

  return {
    /**
     * Counts one failure against each key, in one transaction, unless a key has already reached its
     * limit: then nothing is counted and the answer is false. The check and the count are one step,
     * so attempts running side by side cannot all pass the check before any is counted.
     */
    take(limits: readonly (readonly [key: string, limit: number])[], now: number): boolean {
      return db.sql.transaction(() => {
        if (limits.some(([key, limit]) => failures(key, now) >= limit)) return false;
        const bump = db.sql.prepare(
          `INSERT INTO signin_attempts (key, window_start, failures) VALUES (?, ?, 1)
           ON CONFLICT(key) DO UPDATE SET
             failures = CASE WHEN signin_attempts.window_start <= ? THEN 1 ELSE signin_attempts.failures + 1 END,
             window_start = CASE WHEN signin_attempts.window_start <= ? THEN excluded.window_start
               ELSE signin_attempts.window_start END`,
        );
        for (const [key] of limits) bump.run(key, now, now - window, now - window);
        return true;
      });
    },

    /** Takes back one failure counted against each key; a count back at none is deleted. */
    giveBack(keys: readonly string[]): void {
      const decrement = db.sql.prepare('UPDATE signin_attempts SET failures = failures - 1 WHERE key = ?');
      const emptied = db.sql.prepare('DELETE FROM signin_attempts WHERE key = ? AND failures <= 0');
      db.sql.transaction(() => {
        for (const key of keys) {
          decrement.run(key);
          emptied.run(key);
        }
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
