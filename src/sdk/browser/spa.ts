/**
 * A single-page app as a public client (bundled as its own ES module, SPA_CLIENT_JS):
 *
 *   const verity = createSpaClient({ issuer, clientId, redirectUri: `${location.origin}/callback` });
 *   if (verity.isCallback()) {
 *     const { tokens, claims } = await verity.handleCallback();
 *     const me = await verity.userinfo(tokens.access_token);
 *   } else button.onclick = () => verity.startSignIn({ scope: 'openid email', purpose: 'Sign in' });
 *
 * It is the backend SDK's client run in the page: the transaction lives in the tab's sessionStorage, the
 * page talks to the token endpoint, JWKS and UserInfo cross-origin (the origin must be one of the
 * application's web origins), and the ID token is checked with WebCrypto. Tokens stay in memory.
 */
import { createVerityClient, type SignInResult, type StartSignInInput } from '../client.ts';
import type { SdkClock } from '../clock.ts';
import type { FetchLike } from '../http.ts';
import { sessionTransactionStore } from './session-transactions.ts';

export {
  AuthorizationError,
  CallbackError,
  IdTokenError,
  OAuthResponseError,
  UnexpectedResponseError,
  VerityError,
} from '../errors.ts';

export interface SpaClientOptions {
  /** Verity's issuer / API base URL, e.g. `https://id.example.com`. */
  issuer: string;
  clientId: string;
  /** A registered callback URI on this page's origin. */
  redirectUri: string;
  /** Where transactions wait for the callback. Default: this tab's sessionStorage. */
  storage?: Storage;
  transactionTtlSeconds?: number;
  fetch?: FetchLike;
  clock?: SdkClock;
  /** Test seam for location and history; defaults to the page's own window. */
  window?: Window;
}

export type SpaSignInInput = Omit<StartSignInInput, 'sessionId' | 'display'>;

export interface SpaSignIn extends SignInResult {
  /** The `returnTo` given to `startSignIn`. */
  returnTo?: string;
}

// sessionStorage is already the tab's own: every transaction there belongs to this browser session.
const TAB_SESSION = 'tab';
const CALLBACK_PARAMS = ['code', 'state', 'iss', 'error', 'error_description', 'error_uri'];

export function createSpaClient(options: SpaClientOptions) {
  const { storage, window: win, ...clientOptions } = options;
  const w = win ?? window;
  const client = createVerityClient({
    ...clientOptions,
    store: sessionTransactionStore(storage ?? w.sessionStorage),
  });
  const redirect = new URL(options.redirectUri);
  const callbackPath = redirect.origin + redirect.pathname;

  const spa = {
    /** Stores a new transaction and returns the `/v1/oauth/authorize` URL for it. */
    async authorizationUrl(input: SpaSignInInput): Promise<string> {
      const started = await client.startSignIn({ ...input, sessionId: TAB_SESSION, display: 'page' });
      return started.authorizationUrl;
    },
    /** Sends the tab to Verity's hosted sign-in; it comes back to `redirectUri`. */
    async startSignIn(input: SpaSignInInput): Promise<void> {
      w.location.assign(await spa.authorizationUrl(input));
    },
    /** Whether `url` (default: this page) is the callback of a sign-in. */
    isCallback(url: string = w.location.href): boolean {
      const u = new URL(url);
      return u.origin + u.pathname === callbackPath && u.searchParams.has('state');
    },
    /**
     * Checks the callback against this tab's transaction (the state compared in constant time, single
     * use, expiry), consumes it, exchanges the code, validates the ID token, and takes the code out of
     * the address bar whatever the outcome. Throws a VerityError (CallbackError, AuthorizationError,
     * OAuthResponseError, IdTokenError, …).
     */
    async handleCallback(url: string = w.location.href): Promise<SpaSignIn> {
      try {
        const { result, transaction } = await client.handleCallback(url, TAB_SESSION);
        return {
          ...result,
          ...(transaction.returnTo === undefined ? {} : { returnTo: transaction.returnTo }),
        };
      } finally {
        if (url === w.location.href) {
          const clean = new URL(url);
          for (const p of CALLBACK_PARAMS) clean.searchParams.delete(p);
          w.history.replaceState(w.history.state, '', clean.href);
        }
      }
    },
    userinfo: client.userinfo,
    listDocuments: client.listDocuments,
    getDocument: client.getDocument,
    discovery: client.discovery,
  };
  return spa;
}

export type SpaClient = ReturnType<typeof createSpaClient>;
