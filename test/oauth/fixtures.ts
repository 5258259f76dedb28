import { createApp } from '../../src/app.ts';
import { createConsentStore } from '../../src/consent/consent.store.ts';
import type { AppContext } from '../../src/context.ts';
import { base64url } from '../../src/crypto/encoding.ts';
import { randomId, randomToken, sha256 } from '../../src/crypto/tokens.ts';
import { approveAuthorization, type Grant } from '../../src/oauth/authorization-result.ts';
import { createAuthorizationRequest, validateAuthorizeRequest } from '../../src/oauth/authorize-request.ts';
import { createPersonStore } from '../../src/persons/person.store.ts';
import { unix } from '../../src/platform/clock.ts';
import type { TestApp } from '../helpers/apps.ts';

export const REDIRECT = 'https://app.example/callback';

export function createTestPerson(ctx: AppContext, environment: 'sandbox' | 'production' = 'sandbox'): string {
  const id = randomId('psn_');
  const now = unix(ctx.clock);
  createPersonStore(ctx.db).insert({
    id,
    externalId: randomId('ext_'),
    environment,
    name: 'Test Person',
    assuranceLevel: 'high',
    identityVerified: true,
    createdAt: now,
    updatedAt: now,
  });
  return id;
}

export function createTestConsent(
  ctx: AppContext,
  app: TestApp,
  personId: string,
  scopes: string[],
  purpose = 'Testing',
): string {
  const id = randomId('cns_');
  const now = unix(ctx.clock);
  createConsentStore(ctx.db).insert({
    id,
    applicationId: app.applicationId,
    environmentId: app.environmentId,
    personId,
    sessionIdHash: null,
    scopes,
    purpose,
    status: 'active',
    grantedAt: now,
    expiresAt: now + 86400,
    lastUsedAt: null,
    endedAt: null,
    endReason: null,
  });
  return id;
}

export interface PkcePair {
  verifier: string;
  challenge: string;
}

export async function pkcePair(): Promise<PkcePair> {
  const verifier = randomToken('', 48);
  return { verifier, challenge: base64url(await sha256(verifier)) };
}

export interface MintOptions {
  scopes?: string[];
  redirectUri?: string;
  /** false: no PKCE at all. */
  pkce?: boolean;
  nonce?: string;
  state?: string;
  personId?: string;
  grant?: Partial<Grant>;
  /** More authorize parameters (e.g. `claims`). */
  params?: Record<string, string>;
}

export interface Minted {
  code: string;
  callback: URL;
  requestId: string;
  personId: string;
  consentId: string;
  verifier?: string;
  nonce?: string;
  state: string;
  redirectUri: string;
}

/** A code minted the way the flow mints it: a validated authorize request, then approval. */
export async function mintCode(ctx: AppContext, app: TestApp, opts: MintOptions = {}): Promise<Minted> {
  const scopes = opts.scopes ?? ['openid', 'profile'];
  const redirectUri = opts.redirectUri ?? REDIRECT;
  const pair = opts.pkce === false ? undefined : await pkcePair();
  const nonce = opts.nonce ?? (scopes.includes('openid') ? randomToken() : undefined);
  const state = opts.state ?? randomToken();
  const params = new URLSearchParams({
    response_type: 'code',
    client_id: app.clientId,
    redirect_uri: redirectUri,
    scope: scopes.join(' '),
    state,
  });
  if (nonce) params.set('nonce', nonce);
  for (const [k, v] of Object.entries(opts.params ?? {})) params.set(k, v);
  if (pair) {
    params.set('code_challenge', pair.challenge);
    params.set('code_challenge_method', 'S256');
  }
  const requestId = createAuthorizationRequest(ctx, validateAuthorizeRequest(ctx, params));
  const personId = opts.personId ?? createTestPerson(ctx);
  const consentId = opts.grant?.consentId ?? createTestConsent(ctx, app, personId, scopes);
  const url = await approveAuthorization(ctx, requestId, {
    personId,
    consentId,
    authTime: unix(ctx.clock) - 30,
    acr: 'high',
    amr: ['pwd', 'face'],
    livenessVerified: true,
    faceMatchVerified: true,
    ...opts.grant,
  });
  const callback = new URL(url);
  return {
    code: callback.searchParams.get('code')!,
    callback,
    requestId,
    personId,
    consentId,
    verifier: pair?.verifier,
    nonce,
    state,
    redirectUri,
  };
}

/** Form-encoding per RFC 6749 §2.3.1 / application/x-www-form-urlencoded (spaces as '+'). */
export const formEncode = (s: string) => new URLSearchParams({ s }).toString().slice(2);

/** HTTP Basic as RFC 6749 §2.3.1 says: each part form-encoded, then base64 of UTF-8. */
export const basic = (id: string, secret: string) => {
  const bytes = new TextEncoder().encode(`${formEncode(id)}:${formEncode(secret)}`);
  return `Basic ${btoa(String.fromCharCode(...bytes))}`;
};

/** The app over `app.request`, with a socket address the rate limiter sees. */
export function inProcess(ctx: AppContext, ip = '198.51.100.7') {
  const app = createApp(ctx);
  return (path: string, init?: RequestInit, from = ip) =>
    app.request(`${ctx.config.server.base_url}${path}`, init, { ip: from });
}

export function tokenRequest(
  body: Record<string, unknown>,
  opts: { auth?: string; as?: 'json' | 'form' } = {},
): RequestInit {
  const headers: Record<string, string> = {};
  if (opts.auth) headers.Authorization = opts.auth;
  if (opts.as === 'form') {
    headers['Content-Type'] = 'application/x-www-form-urlencoded';
    return { method: 'POST', headers, body: new URLSearchParams(body as Record<string, string>).toString() };
  }
  headers['Content-Type'] = 'application/json';
  return { method: 'POST', headers, body: JSON.stringify(body) };
}
