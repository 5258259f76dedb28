/**
 * The browser half of the popup transport (bundled into a small ES module for the page):
 *
 *   button.addEventListener('click', () => {
 *     signIn({ transactionEndpoint: '/auth/transaction' }).then((r) => { if (r.status === 'complete') location.reload(); });
 *   });
 *
 * `signIn` opens the blank popup synchronously, inside the click, before it asks the backend for a
 * transaction (a popup opened after an await is blocked). Blocked popup or mobile: full-page redirect.
 */
import * as v from 'valibot';
import { COMPLETION_TYPE, CompletionMessage, TransactionResponse } from './messages.ts';

export { COMPLETION_TYPE };

export interface SignInOptions {
  /** The application's own backend endpoint; POSTed `{ display }`, answers `{ transactionId, authorizationUrl }`. */
  transactionEndpoint: string;
  /** Extra request options for that call (e.g. a CSRF header). Cookies are always sent. */
  requestInit?: RequestInit;
  /** Extra JSON fields for the transaction request (e.g. a return path). */
  requestBody?: Record<string, unknown>;
  /** Forces the mobile behaviour (always a full-page redirect); detected when omitted. */
  mobile?: boolean;
  /** The application's origin; the completion message must come from it. Default: this page's origin. */
  appOrigin?: string;
  popupWidth?: number;
  popupHeight?: number;
  /** How often to check whether the person closed the popup. */
  closedPollMs?: number;
  /** Test seams; default to the page's own window. */
  window?: Window;
}

export type SignInResult =
  | { status: 'complete'; transactionId: string }
  /** The person closed the popup before the sign-in completed. */
  | { status: 'closed' }
  /** The page is navigating to the hosted experience (blocked popup or mobile). */
  | { status: 'redirecting' };

export class SignInError extends Error {}

/** A best guess; pass `mobile` explicitly when the application knows better. */
export function isMobile(w: Window): boolean {
  const nav = w.navigator as Navigator & { userAgentData?: { mobile?: boolean } };
  return /Android|iPhone|iPad|iPod|Mobile/i.test(nav.userAgent) || nav.userAgentData?.mobile === true;
}

async function requestTransaction(
  opts: SignInOptions,
  w: Window,
  display: 'popup' | 'page',
): Promise<TransactionResponse> {
  const init = opts.requestInit ?? {};
  const res = await w.fetch(opts.transactionEndpoint, {
    ...init,
    method: 'POST',
    credentials: 'same-origin',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json',
      ...(init.headers as Record<string, string>),
    },
    body: JSON.stringify({ ...opts.requestBody, display }),
  });
  if (!res.ok) throw new SignInError(`transaction request failed with HTTP ${res.status}`);
  const parsed = v.safeParse(TransactionResponse, await res.json().catch(() => undefined));
  if (!parsed.success)
    throw new SignInError('transaction response is not { transactionId, authorizationUrl }');
  return parsed.output;
}

async function redirect(opts: SignInOptions, w: Window): Promise<SignInResult> {
  const tx = await requestTransaction(opts, w, 'page');
  w.location.assign(tx.authorizationUrl);
  return { status: 'redirecting' };
}

/** Call synchronously from the click handler (no await before it). */
export function signIn(opts: SignInOptions): Promise<SignInResult> {
  const w = opts.window ?? window;
  if (opts.mobile ?? isMobile(w)) return redirect(opts, w);

  const width = opts.popupWidth ?? 480;
  const height = opts.popupHeight ?? 720;
  const left = Math.max(0, Math.round(w.screenX + (w.outerWidth - width) / 2));
  const top = Math.max(0, Math.round(w.screenY + (w.outerHeight - height) / 2));
  // Opened now, blank, while the click's user activation lasts; navigated once the backend answers.
  let popup: Window | null = null;
  try {
    popup = w.open(
      'about:blank',
      '_blank',
      `popup=yes,width=${width},height=${height},left=${left},top=${top}`,
    );
  } catch {
    popup = null;
  }
  if (!popup || popup.closed) return redirect(opts, w);
  return completeInPopup(opts, w, popup);
}

function completeInPopup(opts: SignInOptions, w: Window, popup: Window): Promise<SignInResult> {
  const appOrigin = opts.appOrigin ?? w.location.origin;
  return new Promise<SignInResult>((resolve, reject) => {
    let transactionId: string | undefined;
    let timer: ReturnType<typeof setInterval> | undefined;
    const finish = (result: SignInResult | Error) => {
      w.removeEventListener('message', onMessage);
      if (timer !== undefined) clearInterval(timer);
      if (result instanceof Error) reject(result);
      else resolve(result);
    };
    // Every condition of the interface must hold; anything else is ignored, not treated as failure,
    // so a forged message cannot even cancel the sign-in.
    const onMessage = (event: MessageEvent) => {
      if (event.origin !== appOrigin) return;
      if (event.source !== popup) return;
      if (transactionId === undefined) return;
      const parsed = v.safeParse(CompletionMessage, event.data);
      if (!parsed.success || parsed.output.transactionId !== transactionId) return;
      popup.close();
      finish({ status: 'complete', transactionId });
    };
    w.addEventListener('message', onMessage);
    // The completion page posts its message and then closes itself, and the opener can see the popup
    // closed before that message is delivered: report 'closed' only when it is still closed one poll
    // later, by which time a pending completion message has arrived.
    let seenClosed = false;
    timer = setInterval(() => {
      if (!popup.closed) return;
      if (seenClosed) finish({ status: 'closed' });
      seenClosed = true;
    }, opts.closedPollMs ?? 400);

    requestTransaction(opts, w, 'popup').then(
      (tx) => {
        transactionId = tx.transactionId;
        popup.location.href = tx.authorizationUrl;
      },
      (e: unknown) => {
        popup.close();
        finish(e instanceof Error ? e : new SignInError(String(e)));
      },
    );
  });
}
