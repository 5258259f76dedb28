import type { Db } from '../db/open.ts';
import { addressKey } from '../http/address-key.ts';
import { createSigninAttemptStore } from './signin-attempt.store.ts';

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
  const attempts = createSigninAttemptStore(db, limits.window);
  return {
    /** True when the email, the person or the address has used up its failures for the window. */
    blocked(email: string, ip: string, now: number, personId?: string): boolean {
      return (
        accountKeys(email, personId).some((key) => attempts.failures(key, now) >= limits.perAccount) ||
        attempts.failures(addressKey(ip), now) >= limits.perIp
      );
    },

    recordFailure(email: string, ip: string, now: number, personId?: string): void {
      attempts.recordFailure([...accountKeys(email, personId), addressKey(ip)], now);
    },

    /** A successful sign-in clears the account's counts (the address keeps its own). */
    recordSuccess(email: string, personId?: string): void {
      attempts.clear(accountKeys(email, personId));
    },

    purgeExpired: attempts.purgeExpired,
  };
}
