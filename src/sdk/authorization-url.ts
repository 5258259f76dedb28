import { type ClaimsRequest, claimsText } from './claims-parameter.ts';
import { codeChallenge, type Transaction } from './transaction.ts';

export interface AuthorizationUrlParams {
  /** `authorization_endpoint` of the discovery document. */
  authorizationEndpoint: string;
  clientId: string;
  transaction: Pick<Transaction, 'state' | 'nonce' | 'codeVerifier' | 'redirectUri' | 'display'>;
  /** Space-separated or a list; a subset of the application's enabled scopes. */
  scope: string | readonly string[];
  /** Plain-language reason shown at consent (recommended). */
  purpose?: string;
  /** Defaults to the transaction's display; `popup` only when opened in a popup window. */
  display?: 'page' | 'popup';
  prompt?: 'none' | 'login' | 'consent';
  maxAge?: number;
  loginHint?: string;
  uiLocales?: string;
  /** The `claims` parameter: a request object, or its JSON text (see `claimsParameter`). */
  claims?: ClaimsRequest | string;
}

/** The `/v1/oauth/authorize` URL for a transaction: state, nonce and the S256 challenge of its verifier. */
export async function authorizationUrl(p: AuthorizationUrlParams): Promise<string> {
  const url = new URL(p.authorizationEndpoint);
  const scope = typeof p.scope === 'string' ? p.scope : p.scope.join(' ');
  const q = url.searchParams;
  q.set('response_type', 'code');
  q.set('client_id', p.clientId);
  q.set('redirect_uri', p.transaction.redirectUri);
  q.set('scope', scope);
  q.set('state', p.transaction.state);
  q.set('nonce', p.transaction.nonce);
  q.set('code_challenge', await codeChallenge(p.transaction));
  q.set('code_challenge_method', 'S256');
  if (p.purpose) q.set('purpose', p.purpose);
  const display = p.display ?? p.transaction.display;
  if (display === 'popup') q.set('display', 'popup');
  if (p.prompt) q.set('prompt', p.prompt);
  if (p.maxAge !== undefined) q.set('max_age', String(p.maxAge));
  if (p.loginHint) q.set('login_hint', p.loginHint);
  if (p.uiLocales) q.set('ui_locales', p.uiLocales);
  if (p.claims) q.set('claims', claimsText(p.claims));
  return url.toString();
}
