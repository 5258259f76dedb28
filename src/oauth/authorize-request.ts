import { redirectUriMatches } from '../apps/redirect-uri-rules.ts';
import type { AppContext } from '../context.ts';
import { randomToken } from '../crypto/tokens.ts';
import { OAuthError } from '../errors.ts';
import { MAX_ID_TOKEN_HINT_BYTES, verifiedIdTokenHint } from '../oidc/id-token-hint.ts';
import { unix } from '../platform/clock.ts';
import { createAuthorizationRequestStore } from './authorization-request.store.ts';
import {
  AUTHORIZE_CHECKS,
  bytes,
  type CheckInput,
  MAX_BYTES,
  type ValidAuthorizeRequest,
} from './authorize-checks.ts';
import { clientRegistry } from './client.store.ts';

/**
 * An authorize error. `redirectUri` is set only once the client and the redirect URI are verified;
 * without it the error must be shown as a page, never redirected (RFC 6749 §4.1.2.1).
 */
export class AuthorizeError extends OAuthError {
  constructor(
    error: string,
    description: string,
    readonly redirectUri?: string,
    readonly state?: string,
  ) {
    super(error, description);
  }
}

/** The single value of a parameter; empty counts as absent (RFC 6749 §3.1). */
function single(params: URLSearchParams, name: string): string | undefined {
  const all = params.getAll(name);
  return all.length === 1 && all[0] !== '' ? all[0] : undefined;
}

/** Validates every value of an authorize request before the person is asked anything. */
export function validateAuthorizeRequest(ctx: AppContext, params: URLSearchParams): ValidAuthorizeRequest {
  const page = (description: string) => new AuthorizeError('invalid_request', description);
  if (params.getAll('client_id').length > 1) throw page('The client_id parameter is repeated.');
  const clientId = single(params, 'client_id');
  if (clientId === undefined) throw page('The client_id parameter is missing.');
  const clients = clientRegistry(ctx);
  const client = clients.client(clientId);
  if (!client) throw new AuthorizeError('invalid_client', 'The client_id is not a known application.');

  if (params.getAll('redirect_uri').length > 1) throw page('The redirect_uri parameter is repeated.');
  const redirectUri = single(params, 'redirect_uri');
  if (redirectUri === undefined) throw page('The redirect_uri parameter is missing.');
  // Exact string comparison (no normalisation): case, trailing slashes, queries all count, and ports
  // too except on a loopback IP literal.
  if (!clients.redirectUris(client.environmentId).some((r) => redirectUriMatches(r, redirectUri)))
    throw page('The redirect_uri is not registered for this application.');

  const draft: Partial<ValidAuthorizeRequest> = { client, redirectUri };
  const input: CheckInput = {
    params,
    client,
    config: ctx.config,
    value: (name) => single(params, name),
    draft,
  };
  // An over-long state is not sent back: the callback would reflect whatever a crafted link put there.
  const state = single(params, 'state');
  const echoed = state !== undefined && bytes(state) <= MAX_BYTES.state ? state : undefined;
  for (const [, check] of AUTHORIZE_CHECKS) {
    try {
      check(input);
    } catch (e) {
      if (e instanceof OAuthError) throw new AuthorizeError(e.error, e.description, redirectUri, echoed);
      throw e;
    }
  }
  return draft as ValidAuthorizeRequest;
}

/**
 * An `id_token_hint` (OIDC Core §3.1.2.1) must be an ID token Verity issued to this client; its `sub`
 * is kept with the request, and only that person may answer it (identity/flow.ts). One that is not
 * such a token is refused, as every other bad parameter is, rather than ignored.
 */
export async function checkIdTokenHint(
  ctx: AppContext,
  req: ValidAuthorizeRequest,
  params: URLSearchParams,
): Promise<ValidAuthorizeRequest> {
  const token = single(params, 'id_token_hint');
  if (token === undefined) return req;
  const hint = bytes(token) <= MAX_ID_TOKEN_HINT_BYTES ? await verifiedIdTokenHint(ctx, token) : undefined;
  if (!hint?.audiences.includes(req.client.clientId))
    throw new AuthorizeError(
      'invalid_request',
      'id_token_hint is not an ID token this server issued to this client.',
      req.redirectUri,
      req.state,
    );
  return { ...req, idTokenHintSub: hint.sub };
}

/**
 * Stores a validated request for the identity experience and returns its id. The id is a 256-bit
 * random value: it is the only handle the browser carries between the pages.
 */
export function createAuthorizationRequest(ctx: AppContext, req: ValidAuthorizeRequest): string {
  const id = randomToken('ar_');
  const now = unix(ctx.clock);
  createAuthorizationRequestStore(ctx.db).insert({
    id,
    environment_id: req.client.environmentId,
    redirect_uri: req.redirectUri,
    scopes: JSON.stringify(req.scopes),
    state: req.state,
    nonce: req.nonce ?? null,
    code_challenge: req.codeChallenge ?? null,
    purpose: req.purpose,
    display: req.display,
    prompt: req.prompt ?? null,
    max_age: req.maxAge ?? null,
    login_hint: req.loginHint ?? null,
    ui_locales: req.uiLocales ?? null,
    required_acr: req.requiredAcr ?? null,
    claims: req.claims ? JSON.stringify(req.claims) : null,
    id_token_hint_sub: req.idTokenHintSub ?? null,
    created_at: now,
    expires_at: now + Math.floor(ctx.config.identity.interaction_ttl / 1000),
  });
  return id;
}
