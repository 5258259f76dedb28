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
 * The keys counted at the per-account limit: the typed email, and the person it belongs to if any,
 * so a person with several emails gets the same number of guesses as one with a single email.
 */
const accountKeys = (email: string, personId?: string) =>
  personId ? [accountKey(email), `person:${personId}`] : [accountKey(email)];

/**
 * Failed sign-ins counted in fixed windows per account (email and person) and per IP
 * (`signin_attempts`), so guessing is slow against one account from many addresses and against many
 * accounts from one address.
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
    /** True when the email, the person or the address has used up its failures for the window. */
    blocked(email: string, ip: string, now: number, personId?: string): boolean {
      return (
        accountKeys(email, personId).some((key) => failures(key, now) >= limits.perAccount) ||
        failures(addressKey(ip), now) >= limits.perIp
      );
    },

    recordFailure(email: string, ip: string, now: number, personId?: string): void {
      const bump = db.sql.prepare(
        `INSERT INTO signin_attempts (key, window_start, failures) VALUES (?, ?, 1)
         ON CONFLICT(key) DO UPDATE SET
           failures = CASE WHEN ? - window_start >= ? THEN 1 ELSE failures + 1 END,
           window_start = CASE WHEN ? - window_start >= ? THEN ? ELSE window_start END`,
      );
      db.sql.transaction(() => {
        for (const key of [...accountKeys(email, personId), addressKey(ip)])
          bump.run(key, now, now, limits.window, now, limits.window, now);
      });
    },

    /** A successful sign-in clears the account's counts (the address keeps its own). */
    recordSuccess(email: string, personId?: string): void {
      const clear = db.sql.prepare('DELETE FROM signin_attempts WHERE key = ?');
      for (const key of accountKeys(email, personId)) clear.run(key);
    },

    purgeExpired(now: number): number {
      return db.sql.prepare('DELETE FROM signin_attempts WHERE window_start <= ?').run(now - limits.window)
        .changes;
    },
  };
}
