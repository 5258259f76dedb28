import { type SdkClock, systemClock } from './clock.ts';
import { randomValue, s256 } from './random.ts';

/**
 * The integrator-side transaction record of the interface: short-lived, single use, bound to the
 * browser session that started it. Only the application backend ever sees it; the browser gets the
 * opaque `id` and the authorization URL.
 */
export interface Transaction {
  /** Opaque identifier handed to the browser (`transactionId`). */
  id: string;
  /** The browser session that started the sign-in; the callback must come from the same one. */
  sessionId: string;
  /** At least 32 random bytes, base64url. */
  state: string;
  /** At least 32 random bytes, base64url. */
  nonce: string;
  /** PKCE verifier, 43 to 128 characters. */
  codeVerifier: string;
  /** A registered callback URI. */
  redirectUri: string;
  /** ISO 8601 creation time. */
  createdAt: string;
  consumed: boolean;
  /** How the browser shows the hosted experience. */
  display: 'page' | 'popup';
  /** Where the application wants to send the person afterwards (its own choice; never sent to Verity). */
  returnTo?: string;
  /** The `max_age` the sign-in asked for, in seconds: the ID token's `auth_time` must be that recent. */
  maxAge?: number;
  /** The `prompt` the sign-in asked for: with `login`, the ID token's `auth_time` must be this sign-in's. */
  prompt?: 'none' | 'login' | 'consent';
  /** The `claims` parameter the sign-in sent (JSON text): what comes back is held to it. */
  claims?: string;
}

export interface CreateTransactionInput {
  sessionId: string;
  redirectUri: string;
  display?: 'page' | 'popup';
  returnTo?: string;
  maxAge?: number;
  prompt?: 'none' | 'login' | 'consent';
  claims?: string;
  /** Defaults to the system clock; inject one to test expiry. */
  clock?: SdkClock;
}

const VERIFIER_PATTERN = /^[A-Za-z0-9\-._~]{43,128}$/;

/** A fresh transaction: 32-byte state and nonce, a 43-character verifier (32 bytes base64url). */
export function createTransaction(input: CreateTransactionInput): Transaction {
  if (!input.sessionId) throw new TypeError('createTransaction: sessionId is required');
  if (!URL.canParse(input.redirectUri))
    throw new TypeError('createTransaction: redirectUri must be an absolute URL');
  const codeVerifier = randomValue(32);
  return {
    id: randomValue(16),
    sessionId: input.sessionId,
    state: randomValue(32),
    nonce: randomValue(32),
    codeVerifier,
    redirectUri: input.redirectUri,
    createdAt: (input.clock ?? systemClock).now().toISOString(),
    consumed: false,
    display: input.display ?? 'page',
    ...(input.returnTo === undefined ? {} : { returnTo: input.returnTo }),
    ...(input.maxAge === undefined ? {} : { maxAge: input.maxAge }),
    ...(input.prompt === undefined ? {} : { prompt: input.prompt }),
    ...(input.claims === undefined ? {} : { claims: input.claims }),
  };
}

/** The S256 challenge for a transaction's verifier. */
export async function codeChallenge(tx: Pick<Transaction, 'codeVerifier'>): Promise<string> {
  if (!VERIFIER_PATTERN.test(tx.codeVerifier))
    throw new TypeError('PKCE verifier must be 43 to 128 unreserved characters');
  return s256(tx.codeVerifier);
}
