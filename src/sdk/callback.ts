import { type SdkClock, systemClock } from './clock.ts';
import { AuthorizationError, CallbackError } from './errors.ts';
import { timingSafeEqual } from './random.ts';
import type { TransactionStore } from './transaction.store.ts';
import type { Transaction } from './transaction.ts';

/** How long a transaction may wait for its callback (the hosted experience's own steps take minutes). */
export const DEFAULT_TRANSACTION_TTL_SECONDS = 600;

export interface HandleCallbackParams<T> {
  /** The callback request's URL or its query parameters. */
  callback: string | URL | URLSearchParams;
  /** The browser session the callback request came with (e.g. from an HTTP-only cookie). */
  sessionId: string | undefined;
  store: TransactionStore;
  /** When given, an `iss` parameter in the callback (RFC 9207) must equal it. */
  issuer?: string;
  /** The issuer advertises `authorization_response_iss_parameter_supported`: `iss` must be present. */
  issRequired?: boolean;
  ttlSeconds?: number;
  clock?: SdkClock;
  /**
   * Runs once the transaction is consumed: exchange the code and validate the ID token here. Whatever
   * it returns or throws, the transaction is discarded afterwards.
   */
  complete(code: string, tx: Transaction): Promise<T>;
}

export interface CallbackOutcome<T> {
  transaction: Transaction;
  result: T;
}

function queryOf(callback: string | URL | URLSearchParams): URLSearchParams {
  if (callback instanceof URLSearchParams) return callback;
  const url = typeof callback === 'string' ? new URL(callback, 'http://callback.invalid') : callback;
  return url.searchParams;
}

/**
 * The interface's callback rules, in order: load the transaction from the same browser session;
 * compare `state` in constant time; reject a missing, expired, consumed or mismatched transaction;
 * mark it consumed before the code is exchanged; discard it after this one attempt; surface
 * `error` / `error_description` as an AuthorizationError.
 */
export async function handleCallback<T>(p: HandleCallbackParams<T>): Promise<CallbackOutcome<T>> {
  const query = queryOf(p.callback);
  const clock = p.clock ?? systemClock;
  const candidates = p.sessionId ? await p.store.findBySession(p.sessionId) : [];
  if (candidates.length === 0)
    throw new CallbackError('transaction_missing', 'no sign-in is pending for this browser session');

  const states = query.getAll('state');
  if (states.length === 0 || states[0] === '')
    throw new CallbackError('state_missing', 'the callback carries no state');
  if (states.length > 1)
    throw new CallbackError('state_mismatch', 'the callback carries more than one state');
  // Every candidate is compared in full so timing does not reveal which (if any) matched.
  let tx: Transaction | undefined;
  for (const c of candidates) if ((await timingSafeEqual(c.state, states[0]!)) && !tx) tx = c;
  if (!tx)
    throw new CallbackError(
      'state_mismatch',
      'the callback state matches no pending sign-in of this session',
    );

  const ttl = (p.ttlSeconds ?? DEFAULT_TRANSACTION_TTL_SECONDS) * 1000;
  if (clock.now().getTime() - Date.parse(tx.createdAt) > ttl) {
    await p.store.discard(tx.id);
    throw new CallbackError('transaction_expired', 'the sign-in took too long; start again');
  }
  if (tx.consumed) throw new CallbackError('transaction_consumed', 'this sign-in was already completed');
  // Consumed before the code leaves this process: a concurrent or replayed callback loses here.
  if (!(await p.store.markConsumed(tx.id)))
    throw new CallbackError('transaction_consumed', 'this sign-in was already completed');
  const consumed: Transaction = { ...tx, consumed: true };

  try {
    const iss = query.get('iss');
    if (p.issRequired && iss === null)
      throw new CallbackError('issuer_missing', 'the callback does not name its issuer (iss)');
    if (p.issuer !== undefined && iss !== null && iss !== p.issuer)
      throw new CallbackError('issuer_mismatch', 'the callback came from another issuer');
    const error = query.get('error');
    if (error) throw new AuthorizationError(error, query.get('error_description') ?? undefined, tx.id);
    const code = query.get('code');
    if (!code) throw new CallbackError('code_missing', 'the callback carries neither code nor error');
    return { transaction: consumed, result: await p.complete(code, consumed) };
  } finally {
    await p.store.discard(tx.id);
  }
}
