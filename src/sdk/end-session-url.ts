export interface EndSessionUrlParams {
  /** `end_session_endpoint` of the discovery document. */
  endSessionEndpoint: string;
  /**
   * The ID token the person signed in with (an expired one is fine). With it Verity signs the person
   * out at once; without it, it asks them first. One that carries the photo is too long for a URL:
   * post these fields as a form instead.
   */
  idTokenHint?: string;
  /** Needed with `postLogoutRedirectUri` when no `idTokenHint` is sent. */
  clientId?: string;
  /** Where to return afterwards: a post-logout redirect URI registered for the environment, exactly. */
  postLogoutRedirectUri?: string;
  /** Returned unchanged on `postLogoutRedirectUri`; check it there as for sign-in. */
  state?: string;
  uiLocales?: string;
}

/**
 * The URL to send the browser to after ending the application's own session, so that the person is
 * signed out of Verity too (OpenID Connect RP-Initiated Logout 1.0).
 */
export function endSessionUrl(p: EndSessionUrlParams): string {
  const url = new URL(p.endSessionEndpoint);
  const q = url.searchParams;
  if (p.idTokenHint) q.set('id_token_hint', p.idTokenHint);
  if (p.clientId) q.set('client_id', p.clientId);
  if (p.postLogoutRedirectUri) q.set('post_logout_redirect_uri', p.postLogoutRedirectUri);
  if (p.state !== undefined) q.set('state', p.state);
  if (p.uiLocales) q.set('ui_locales', p.uiLocales);
  return url.toString();
}
