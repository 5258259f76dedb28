import type { AppContext } from '../../src/context.ts';
import { randomToken } from '../../src/crypto/tokens.ts';
import { approveAuthorization, type Grant } from '../../src/oauth/authorization-result.ts';
import { createAuthorizationRequest, validateAuthorizeRequest } from '../../src/oauth/authorize-request.ts';
import { unix } from '../../src/platform/clock.ts';
import type { TestApp } from '../helpers/apps.ts';
import {
  basic,
  createTestConsent,
  createTestPerson,
  inProcess,
  pkcePair,
  REDIRECT,
  tokenRequest,
} from '../oauth/fixtures.ts';

export interface Issued {
  accessToken: string;
  idToken?: string;
  consentId: string;
  personId: string;
}

/**
 * An access token issued the way a client gets one: a validated authorize request approved for the
 * person under a consent (the given one, or a fresh one for exactly these scopes), then the code
 * exchanged at the token endpoint. The application must have `REDIRECT` registered.
 */
export async function issueToken(
  ctx: AppContext,
  app: TestApp,
  opts: { scopes: string[]; personId?: string; grant?: Partial<Grant> },
): Promise<Issued> {
  const request = inProcess(ctx);
  const pair = await pkcePair();
  const params = new URLSearchParams({
    response_type: 'code',
    client_id: app.clientId,
    redirect_uri: REDIRECT,
    scope: opts.scopes.join(' '),
    state: randomToken(),
    nonce: randomToken(),
    code_challenge: pair.challenge,
    code_challenge_method: 'S256',
  });
  const requestId = createAuthorizationRequest(ctx, validateAuthorizeRequest(ctx, params));
  const personId = opts.personId ?? createTestPerson(ctx);
  const consentId = opts.grant?.consentId ?? createTestConsent(ctx, app, personId, opts.scopes);
  const callback = new URL(
    await approveAuthorization(ctx, requestId, {
      personId,
      consentId,
      authTime: unix(ctx.clock) - 30,
      acr: 'high',
      amr: ['pwd', 'face'],
      livenessVerified: true,
      faceMatchVerified: true,
      ...opts.grant,
    }),
  );
  const res = await request(
    '/v1/oauth/token',
    tokenRequest(
      {
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code')!,
        redirect_uri: REDIRECT,
        client_id: app.clientId,
        code_verifier: pair.verifier,
      },
      { auth: app.clientSecret ? basic(app.clientId, app.clientSecret) : undefined },
    ),
  );
  const body = (await res.json()) as { access_token: string; id_token?: string };
  if (res.status !== 200) throw new Error(`token exchange failed: ${res.status} ${JSON.stringify(body)}`);
  return { accessToken: body.access_token, idToken: body.id_token, consentId, personId };
}

/** Sets an application environment's document policy directly (the CLI path is tested separately). */
export function setDocumentPolicy(ctx: AppContext, app: TestApp, types: string[], countries: string[]): void {
  ctx.db.sql
    .prepare('UPDATE application_environments SET document_types = ?, document_countries = ? WHERE id = ?')
    .run(JSON.stringify(types), JSON.stringify(countries), app.environmentId);
}

export const bearer = (token: string): RequestInit => ({ headers: { Authorization: `Bearer ${token}` } });
