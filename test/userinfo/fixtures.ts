import { setEnvironmentFields } from '../../src/apps/application.store.ts';
import type { AppContext } from '../../src/context.ts';
import { randomToken } from '../../src/crypto/tokens.ts';
import type { Grant } from '../../src/oauth/authorization-result.ts';
import type { TestApp } from '../helpers/apps.ts';
import { basic, inProcess, mintCode, REDIRECT, tokenRequest } from '../oauth/fixtures.ts';

export interface Issued {
  accessToken: string;
  idToken?: string;
  consentId: string;
  personId: string;
}

/**
 * An access token issued the way a client gets one: a code minted by `mintCode` (a validated authorize
 * request with PKCE and a nonce, approved for the person under the given consent or a fresh one for
 * exactly these scopes), then exchanged at the token endpoint. The application must have `REDIRECT`
 * registered.
 */
export async function issueToken(
  ctx: AppContext,
  app: TestApp,
  opts: { scopes: string[]; personId?: string; grant?: Partial<Grant>; params?: Record<string, string> },
): Promise<Issued> {
  const minted = await mintCode(ctx, app, { ...opts, nonce: randomToken() });
  const { consentId, personId } = minted;
  const res = await inProcess(ctx)(
    '/v1/oauth/token',
    tokenRequest(
      {
        grant_type: 'authorization_code',
        code: minted.code,
        redirect_uri: REDIRECT,
        client_id: app.clientId,
        code_verifier: minted.verifier!,
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
  setEnvironmentFields(ctx.db, app.environmentId, {
    documentTypes: JSON.stringify(types),
    documentCountries: JSON.stringify(countries),
  });
}

export const bearer = (token: string): RequestInit => ({ headers: { Authorization: `Bearer ${token}` } });
