import type { AppContext } from '../../src/context.ts';
import type { Grant } from '../../src/oauth/authorization-result.ts';
import type { TestApp } from '../helpers/apps.ts';
import { basic, inProcess, mintCode, tokenRequest } from '../oauth/fixtures.ts';

export interface Issued {
  accessToken: string;
  idToken?: string;
  consentId: string;
  personId: string;
}

/**
 * An access token issued the way a client gets one: an authorize request approved for the person,
 * then the code exchanged at the token endpoint.
 */
export async function issueToken(
  ctx: AppContext,
  app: TestApp,
  opts: { scopes: string[]; personId?: string; grant?: Partial<Grant> },
): Promise<Issued> {
  const request = inProcess(ctx);
  const minted = await mintCode(ctx, app, {
    scopes: opts.scopes,
    personId: opts.personId,
    grant: opts.grant,
  });
  const res = await request(
    '/v1/oauth/token',
    tokenRequest(
      {
        grant_type: 'authorization_code',
        code: minted.code,
        redirect_uri: minted.redirectUri,
        client_id: app.clientId,
        code_verifier: minted.verifier,
      },
      { auth: app.clientSecret ? basic(app.clientId, app.clientSecret) : undefined },
    ),
  );
  const body = (await res.json()) as { access_token: string; id_token?: string; error?: string };
  if (res.status !== 200) throw new Error(`token exchange failed: ${res.status} ${JSON.stringify(body)}`);
  return {
    accessToken: body.access_token,
    idToken: body.id_token,
    consentId: minted.consentId,
    personId: minted.personId,
  };
}

/** Sets an application environment's document policy directly (the CLI path is tested separately). */
export function setDocumentPolicy(ctx: AppContext, app: TestApp, types: string[], countries: string[]): void {
  ctx.db.sql
    .prepare('UPDATE application_environments SET document_types = ?, document_countries = ? WHERE id = ?')
    .run(JSON.stringify(types), JSON.stringify(countries), app.environmentId);
}

export const bearer = (token: string): RequestInit => ({ headers: { Authorization: `Bearer ${token}` } });
