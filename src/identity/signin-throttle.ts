import type { Db } from '../db/open.ts';
import { addressKey } from '../http/address-key.ts';

export interface ThrottleLimits {
  perAccount: number;
  perIp: number;
  /** Seconds of a fixed window. */
  window: number;
}

export const accountKey = (email: string) => `account:${email.trim().toLowerCase()}`;

/**
 * Failed sign-ins counted in fixed windows per account and per IP (`signin_attempts`), so guessing
 * is slow against one account from many addresses and against many accounts from one address.
 */
export function createSigninThrottle(db: Db, limits: ThrottleLimits) {
  const failures = (key: string, now: number): number => {
    const row = db.sql
      .prepare<{ window_start: number; failures: number }>(
        'SELECT window_start, failures FROM signin_attempts WHERE key = ?',
      )
      .get(key);
    return row && now - row.window_start < limits.window ? row.failures : 0;
  };
  return {
    /** True when either the account or the address has used up its failures for the window. */
    blocked(email: string, ip: string, now: number): boolean {
      return (
        failures(accountKey(email), now) >= limits.perAccount || failures(addressKey(ip), now) >= limits.perIp
      );
    },

    recordFailure(email: string, ip: string, now: number): void {
      const bump = db.sql.prepare(
        `INSERT INTO signin_attempts (key, window_start, failures) VALUES (?, ?, 1)
         ON CONFLICT(key) DO UPDATE SET
           failures = CASE WHEN ? - window_start >= ? THEN 1 ELSE failures + 1 END,
           window_start = CASE WHEN ? - window_start >= ? THEN ? ELSE window_start END`,
      );
      db.sql.transaction(() => {
        for (const key of [accountKey(email), addressKey(ip)])
          bump.run(key, now, now, limits.window, now, limits.window, now);
      });
    },

    /** A successful sign-in clears the account's count (the address keeps its own). */
    recordSuccess(email: string): void {
      db.sql.prepare('DELETE FROM signin_attempts WHERE key = ?').run(accountKey(email));
    },

    purgeExpired(now: number): number {
      return db.sql.prepare('DELETE FROM signin_attempts WHERE window_start <= ?').run(now - limits.window)
        .changes;
    },
  };
}
