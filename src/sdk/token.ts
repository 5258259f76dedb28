import { type SdkClock, systemClock } from './clock.ts';
import { UnexpectedResponseError } from './errors.ts';
import { type FetchLike, readJson, send } from './http.ts';
import type { TokenResponse } from './types.ts';

export type TokenEndpointAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'none';

/** How a client authenticates at the token and revocation endpoints. */
interface ClientCredentials {
  clientId: string;
  /** Confidential clients only. */
  clientSecret?: string;
  /** Default: `client_secret_basic` with a secret, `none` without. */
  authMethod?: TokenEndpointAuthMethod;
}

export interface ExchangeCodeParams extends ClientCredentials {
  tokenEndpoint: string;
  code: string;
  redirectUri: string;
  codeVerifier: string;
  fetch?: FetchLike;
  clock?: SdkClock;
}

/** application/x-www-form-urlencoded encoding of one value, as HTTP Basic for OAuth requires (RFC 6749 §2.3.1). */
export const formEncode = (value: string): string => new URLSearchParams({ v: value }).toString().slice(2);

export function basicCredentials(clientId: string, clientSecret: string): string {
  const raw = `${formEncode(clientId)}:${formEncode(clientSecret)}`;
  // Form encoding leaves only ASCII, so btoa is safe.
  return `Basic ${btoa(raw)}`;
}

/** The client's credentials as `method` sends them: a header, or fields of the body. */
function authenticate(
  p: ClientCredentials,
  body: Record<string, string>,
  headers: Record<string, string>,
): void {
  const method: TokenEndpointAuthMethod = p.authMethod ?? (p.clientSecret ? 'client_secret_basic' : 'none');
  if (method !== 'none' && !p.clientSecret) throw new TypeError(`${method} needs a clientSecret`);
  body.client_id = p.clientId;
  if (method === 'client_secret_basic') headers.authorization = basicCredentials(p.clientId, p.clientSecret!);
  if (method === 'client_secret_post') body.client_secret = p.clientSecret!;
}

/**
 * Exchanges a one-time code at `/v1/oauth/token` with a JSON body. Errors come back typed:
 * OAuthResponseError (`invalid_grant`, `invalid_client` …), RateLimitError (429 with Retry-After).
 */
export async function exchangeCode(p: ExchangeCodeParams): Promise<TokenResponse> {
  const body: Record<string, string> = {
    grant_type: 'authorization_code',
    code: p.code,
    redirect_uri: p.redirectUri,
    code_verifier: p.codeVerifier,
  };
  const headers: Record<string, string> = { accept: 'application/json', 'content-type': 'application/json' };
  authenticate(p, body, headers);
  const res = await send(p.fetch ?? fetch, p.tokenEndpoint, {
    method: 'POST',
    headers,
    body: JSON.stringify(body),
  });
  const tokens = await readJson<TokenResponse>(res, (p.clock ?? systemClock).now());
  if (typeof tokens.access_token !== 'string' || typeof tokens.token_type !== 'string')
    throw new UnexpectedResponseError('token response has no access_token', res.status);
  if (tokens.token_type.toLowerCase() !== 'bearer')
    throw new UnexpectedResponseError(`unexpected token_type ${tokens.token_type}`, res.status);
  return tokens;
}

export interface RevokeTokenParams extends ClientCredentials {
  /** The discovery document's `revocation_endpoint`. */
  revocationEndpoint: string;
  accessToken: string;
  fetch?: FetchLike;
  clock?: SdkClock;
}

/**
 * Revokes an access token at `/v1/oauth/revoke` (RFC 7009), authenticated as at the token endpoint.
 * Resolves for a token that was unknown, expired or already revoked too; errors come back typed as
 * for `exchangeCode` (`invalid_client`, RateLimitError …).
 */
export async function revokeToken(p: RevokeTokenParams): Promise<void> {
  const body: Record<string, string> = { token: p.accessToken, token_type_hint: 'access_token' };
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  authenticate(p, body, headers);
  const res = await send(p.fetch ?? fetch, p.revocationEndpoint, {
    method: 'POST',
    headers,
    body: new URLSearchParams(body).toString(),
  });
  if (!res.ok) await readJson(res, (p.clock ?? systemClock).now());
  await res.body?.cancel();
}
