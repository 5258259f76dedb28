import type { Db } from '../db/open.ts';
import { addressKey } from '../http/address-key.ts';
import { createSigninAttemptStore } from './signin-attempt.store.ts';

export interface ThrottleLimits {
  perAccount: number;
  perIp: number;
  /** Seconds of a fixed window. */
  window: number;
}

/**
 * Whose counts a throttle keeps: a typed email is any text, so each kind of account counts under its
 * own name, where no text typed for another can reach.
 */
export type ThrottledAccounts = 'email' | 'developer' | 'password-change';

/** Who a sign-in is for, besides the typed email: the person it names, and a browser known to them. */
export interface SigninSubject {
  personId?: string;
  /** A browser that signed in to this account before (known-browsers.ts): counted on its own. */
  browser?: string;
}

/**
 * The keys counted at the per-account limit: a known browser's own; else the typed email, and the
 * person it belongs to if any, so a person with several emails gets the same number of guesses as one
 * with a single email.
 */
const accountKeys = (accounts: ThrottledAccounts, email: string, who: SigninSubject = {}) => {
  // Beside `browser:`, `person:` and `ip:`, which hold no typed text.
  const account = `${accounts}:${email.trim().toLowerCase()}`;
  return who.browser
    ? [`browser:${who.browser}`]
    : who.personId
      ? [account, `person:${who.personId}`]
      : [account];
};

/**
 * Failed sign-ins counted in fixed windows per account (email and person) and per IP
 * (`signin_attempts`), so guessing is slow against one account from many addresses and against many
 * accounts from one address.
 */
export function createSigninThrottle(db: Db, limits: ThrottleLimits, accounts: ThrottledAccounts = 'email') {
  const attempts = createSigninAttemptStore(db, limits.window);
  return {
    /**
     * Counts a sign-in attempt as failed before its password is checked, against the email, the person
     * and the address, unless one of them has used up its failures for the window: nothing is counted
     * then, and the answer is `throttled`. Counted first, guesses sent side by side stop at the limit;
     * counted after the check, each would pass the check before the others failed. When only the
     * person's count is used up (by guesses at their other addresses), the attempt is counted against
     * the email and the address and `refused`: it must fail as a wrong password does, since a
     * "throttled" at the first try would tell that this address belongs to that person. A browser
     * known to the account is counted on its own instead of the email and the person.
     */
    attempt(
      email: string,
      ip: string,
      now: number,
      who?: SigninSubject,
    ): 'counted' | 'refused' | 'throttled' {
      const [account, ...person] = accountKeys(accounts, email, who).map(
        (key) => [key, limits.perAccount] as const,
      );
      const visible = [account!, [addressKey(ip), limits.perIp] as const];
      if (attempts.take([...visible, ...person], now)) return 'counted';
      return person.length && attempts.take(visible, now) ? 'refused' : 'throttled';
    },

    /**
     * The attempt succeeded: the counts it was taken from are cleared, the address's taken back. A known
     * browser clears only its own: the guesses of others at the account still wait for their window.
     */
    succeeded(email: string, ip: string, who?: SigninSubject): void {
      attempts.clear(accountKeys(accounts, email, who));
      attempts.giveBack([addressKey(ip)]);
    },

    /**
     * The password check of a counted attempt. One that gives no answer (the hashing pool was busy) is
     * taken back whole before its error goes on: a password never checked counts for nothing.
     */
    async check(
      email: string,
      ip: string,
      who: SigninSubject | undefined,
      run: () => Promise<boolean>,
    ): Promise<boolean> {
      try {
        return await run();
      } catch (e) {
        attempts.giveBack([...accountKeys(accounts, email, who), addressKey(ip)]);
        throw e;
      }
    },

    purgeExpired: attempts.purgeExpired,
  };
}
