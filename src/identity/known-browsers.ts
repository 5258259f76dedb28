import type { Context } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import type { AppContext } from '../context.ts';
import { hmacSha256Base64url } from '../crypto/digest.ts';
import { constantTimeEqual, randomToken } from '../crypto/tokens.ts';
import { pairwiseSecret } from '../keys/pairwise.ts';

/** How long a browser stays known to an account after it signed in there. */
const KNOWN_FOR_SECONDS = 180 * 24 * 60 * 60;

/** What the browser of one request is to an account, signed in to with its stored password hash. */
export interface KnownBrowser {
  /** The browser's id when it signed in to the account with this same password before; else undefined. */
  recognise(accountId: string, passwordHash: string): Promise<string | undefined>;
  /** After a sign-in: the browser is known to the account (one account at a time). */
  remember(accountId: string, passwordHash: string): Promise<void>;
}

/**
 * Browsers known to an account: one that signed in gets a cookie (`id.mac`, the MAC binding the id to
 * the account and its password hash), and its failed sign-ins to that account are counted on their own
 * rather than against the account, so guesses from elsewhere cannot lock the owner out of a browser
 * they signed in with before (docs/reference.md, "Sign-in throttle"). Nothing is stored: the MAC's key
 * is derived from the instance's pairwise secret, which every instance shares, and a new password
 * makes every earlier cookie unknown.
 */
export function knownBrowsers(ctx: AppContext, cookieName: `__Host-${string}`) {
  const mac = async (accountId: string, passwordHash: string, id: string) =>
    hmacSha256Base64url(
      hmacSha256Base64url(await pairwiseSecret(ctx), 'verity-known-browser'),
      `${accountId}.${passwordHash}.${id}`,
    );
  return {
    of: (c: Context): KnownBrowser => ({
      async recognise(accountId, passwordHash) {
        const [id, sent, ...rest] = (getCookie(c, cookieName) ?? '').split('.');
        if (!id || !sent || rest.length) return undefined;
        return constantTimeEqual(sent, await mac(accountId, passwordHash, id)) ? id : undefined;
      },
      async remember(accountId, passwordHash) {
        const id = randomToken('', 16);
        setCookie(c, cookieName, `${id}.${await mac(accountId, passwordHash, id)}`, {
          path: '/',
          secure: true,
          httpOnly: true,
          sameSite: 'Lax',
          maxAge: KNOWN_FOR_SECONDS,
        });
      },
    }),
  };
}

/** The browsers known to persons, for the sign-in of the identity experience and the account page. */
export const knownPersonBrowsers = (ctx: AppContext) => knownBrowsers(ctx, '__Host-verity_known');
