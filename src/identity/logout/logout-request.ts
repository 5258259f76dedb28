import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { ApiError } from '../../errors.ts';
import { clientRegistry, type OAuthClient } from '../../oauth/client.store.ts';
import { MAX_ID_TOKEN_HINT_BYTES, verifiedIdTokenHint } from '../../oidc/id-token-hint.ts';

/**
 * The parameters of OpenID Connect RP-Initiated Logout 1.0 §2, from the query (GET) or the form (POST).
 * `logout_hint` is accepted and ignored, as §2 allows.
 */
export const logoutParams = z.object({
  id_token_hint: z.string().max(MAX_ID_TOKEN_HINT_BYTES).optional(),
  client_id: z.string().max(200).optional(),
  post_logout_redirect_uri: z.string().max(2000).optional(),
  state: z.string().max(2000).optional(),
  ui_locales: z.string().max(200).optional(),
  logout_hint: z.string().max(2000).optional(),
});
export type LogoutParams = z.infer<typeof logoutParams>;

/** A logout request whose every parameter checked out. */
export interface LogoutRequest {
  /** The client, when the hint or `client_id` names one. */
  client?: OAuthClient;
  /** The pairwise `sub` of a verified `id_token_hint`: whose session at that client is ending. */
  hintSubject?: string;
  /** The registered `post_logout_redirect_uri` with `state` added (§3); absent: no redirect. */
  returnTo?: string;
  /** What a confirmation form carries to repeat this request without the hint. */
  carried: Pick<LogoutParams, 'client_id' | 'post_logout_redirect_uri' | 'state' | 'ui_locales'>;
}

const invalid = (message: string) => new ApiError('INVALID_REQUEST', message, 400);

/**
 * Checks a logout request (§4): a hint must be an ID token Verity signed (any key still in the JWKS),
 * for this issuer and a known client; an expired one is accepted, since logout often comes after the
 * token's 15 minutes. `client_id` must be that audience when both are sent (§2). A
 * `post_logout_redirect_uri` needs an identified client and must be registered for that client's
 * environment exactly (§3); anything else is refused rather than ignored, so nothing is ended and no
 * browser is sent anywhere on a request that is wrong.
 */
export async function checkLogoutRequest(
  ctx: Pick<AppContext, 'db' | 'caches' | 'config' | 'keys'>,
  params: LogoutParams,
): Promise<LogoutRequest> {
  const clients = clientRegistry(ctx);
  let clientId = params.client_id;
  let hintSubject: string | undefined;
  if (params.id_token_hint) {
    const hint = await verifiedIdTokenHint(ctx, params.id_token_hint);
    if (!hint) throw invalid('id_token_hint is not an ID token issued by this server.');
    clientId ??= hint.audiences.length === 1 ? hint.audiences[0] : undefined;
    if (!clientId || !hint.audiences.includes(clientId))
      throw invalid('client_id does not match the audience of id_token_hint.');
    hintSubject = hint.sub;
  }
  const client = clientId === undefined ? undefined : clients.client(clientId);
  if (clientId !== undefined && !client) throw invalid('Unknown client_id.');

  let returnTo: string | undefined;
  const uri = params.post_logout_redirect_uri;
  if (uri !== undefined) {
    if (!client) throw invalid('post_logout_redirect_uri needs id_token_hint or client_id.');
    if (!clients.postLogoutRedirectUris(client.environmentId).includes(uri))
      throw invalid('post_logout_redirect_uri is not registered for this application.');
    const url = new URL(uri);
    if (params.state !== undefined) url.searchParams.set('state', params.state);
    returnTo = url.toString();
  }
  return {
    ...(client ? { client } : {}),
    ...(hintSubject ? { hintSubject } : {}),
    ...(returnTo ? { returnTo } : {}),
    carried: {
      client_id: client?.clientId,
      post_logout_redirect_uri: uri,
      state: params.state,
      ui_locales: params.ui_locales,
    },
  };
}
