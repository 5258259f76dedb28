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
    /**
     * Counts a sign-in attempt as failed before its password is checked, against the email, the person
     * and the address, unless one of them has used up its failures for the window: nothing is counted
     * then, and the answer is `throttled`. Counted first, guesses sent side by side stop at the limit;
     * counted after the check, each would pass the check before the others failed. When only the
     * person's count is used up (by guesses at their other addresses), the attempt is counted against
     * the email and the address and `refused`: it must fail as a wrong password does, since a
     * "throttled" at the first try would tell that this address belongs to that person.
     */
    attempt(email: string, ip: string, now: number, personId?: string): 'counted' | 'refused' | 'throttled' {
      const [account, ...person] = accountKeys(email, personId).map(
        (key) => [key, limits.perAccount] as const,
      );
      const visible = [account!, [addressKey(ip), limits.perIp] as const];
      if (attempts.take([...visible, ...person], now)) return 'counted';
      return person.length && attempts.take(visible, now) ? 'refused' : 'throttled';
    },

    /** The attempt succeeded: the account's counts are cleared and the address's is taken back. */
    succeeded(email: string, ip: string, personId?: string): void {
      attempts.clear(accountKeys(email, personId));
      attempts.giveBack([addressKey(ip)]);
    },

    /**
     * The password check of a counted attempt. One that gives no answer (the hashing pool was busy) is
     * taken back whole before its error goes on: a password never checked counts for nothing.
     */
    async check(
      email: string,
      ip: string,
      personId: string | undefined,
      run: () => Promise<boolean>,
    ): Promise<boolean> {
      try {
        return await run();
      } catch (e) {
        attempts.giveBack([...accountKeys(email, personId), addressKey(ip)]);
        throw e;
      }
    },

    purgeExpired: attempts.purgeExpired,
  };
}
