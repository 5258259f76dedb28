/** Verity's side of the benchmark: its configuration, a client, and codes minted the way the flow mints them. */
import { join } from 'node:path';
import type { AppContext } from '../../src/context.ts';
import { base64url } from '../../src/crypto/encoding.ts';
import { randomId, randomToken, sha256, sha256Hex } from '../../src/crypto/tokens.ts';
import { approveAuthorization } from '../../src/oauth/authorization-result.ts';
import { createAuthorizationRequest, validateAuthorizeRequest } from '../../src/oauth/authorize-request.ts';
import { unix } from '../../src/platform/clock.ts';
import { codeExchanges, type HttpRequest, type MintedCode } from './load.ts';

const REDIRECT_URI = 'https://bench.example/callback';
const SCOPES = ['openid', 'email'];

export function benchToml(dir: string, port: number): string {
  return `[server]
listen = "127.0.0.1:${port}"
base_url = "http://127.0.0.1:${port}"
[database]
path = "${join(dir, 'verity.db')}"
[keys]
dir = "${join(dir, 'keys')}"
[rate_limits.oauth]
requests = 100000000
[rate_limits.userinfo]
requests = 100000000
`;
}

export interface Fixture {
  clientId: string;
  clientSecret: string;
  codes: MintedCode[];
}

/**
 * An application, a person with an email address and a consent, then `n` codes minted the way the flow
 * mints them. `idTokenAlg` sets the client's ID-token algorithm where the schema has that setting.
 */
export async function mintCodes(ctx: AppContext, n: number, idTokenAlg?: string): Promise<Fixture> {
  const now = unix(ctx.clock);
  const applicationId = randomId('app_');
  const environmentId = randomId('env_');
  const clientId = randomToken('cid_test_');
  const clientSecret = randomToken('cs_test_');
  const personId = randomId('psn_');
  const consentId = randomId('cns_');
  const secretHash = await sha256Hex(clientSecret);
  const sql = ctx.db.sql;
  sql.transaction(() => {
    sql
      .prepare(
        `INSERT INTO applications (id, name, type, pkce, full_number_approved, plan, created_at, updated_at)
         VALUES (?, 'Bench', 'confidential', 'required', 0, 'default', ?, ?)`,
      )
      .run(applicationId, now, now);
    sql
      .prepare(
        `INSERT INTO application_environments (id, application_id, environment, client_id, scopes, created_at)
         VALUES (?, ?, 'sandbox', ?, ?, ?)`,
      )
      .run(environmentId, applicationId, clientId, JSON.stringify(SCOPES), now);
    if (idTokenAlg) {
      const table = idTokenAlgTable(ctx);
      if (!table) throw new Error('no id_token_signed_response_alg column');
      sql
        .prepare(`UPDATE ${table} SET id_token_signed_response_alg = ? WHERE id = ?`)
        .run(idTokenAlg, table === 'applications' ? applicationId : environmentId);
    }
    sql
      .prepare('INSERT INTO redirect_uris (environment_id, uri) VALUES (?, ?)')
      .run(environmentId, REDIRECT_URI);
    sql
      .prepare('INSERT INTO client_secrets (id, environment_id, secret_hash, created_at) VALUES (?, ?, ?, ?)')
      .run(randomId('sec_'), environmentId, secretHash, now);
    sql
      .prepare(
        `INSERT INTO persons (id, external_id, environment, name, assurance_level, identity_verified, created_at, updated_at)
         VALUES (?, ?, 'sandbox', 'Bench Person', 'high', 1, ?, ?)`,
      )
      .run(personId, randomId('ext_'), now, now);
    sql
      .prepare('INSERT INTO person_emails (person_id, email, verified, "primary") VALUES (?, ?, 1, 1)')
      .run(personId, `${personId}@bench.example`);
    sql
      .prepare(
        `INSERT INTO consents (id, application_id, environment_id, person_id, scopes, purpose, status, granted_at, expires_at)
         VALUES (?, ?, ?, ?, ?, 'Benchmark', 'active', ?, ?)`,
      )
      .run(consentId, applicationId, environmentId, personId, JSON.stringify(SCOPES), now, now + 86400);
  });
  const codes: MintedCode[] = [];
  for (let i = 0; i < n; i++) {
    const verifier = randomToken('', 48);
    const params = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      scope: SCOPES.join(' '),
      state: randomToken(),
      nonce: randomToken(),
      code_challenge: base64url(await sha256(verifier)),
      code_challenge_method: 'S256',
    });
    const id = createAuthorizationRequest(ctx, validateAuthorizeRequest(ctx, params));
    const url = await approveAuthorization(ctx, id, {
      personId,
      consentId,
      authTime: now,
      acr: 'high',
      amr: ['pwd', 'face'],
      livenessVerified: true,
      faceMatchVerified: true,
    });
    codes.push({ code: new URL(url).searchParams.get('code')!, verifier });
  }
  return { clientId, clientSecret, codes };
}

/** The table that holds a client's ID-token algorithm, once the schema has one. */
export function idTokenAlgTable(ctx: AppContext): string | undefined {
  return ['application_environments', 'applications'].find((table) =>
    ctx.db.sql
      .prepare("SELECT 1 AS x FROM pragma_table_info(?) WHERE name = 'id_token_signed_response_alg'")
      .get(table),
  );
}

export function exchangeRequests(base: string, f: Fixture): () => HttpRequest | undefined {
  return codeExchanges(
    `${base}/v1/oauth/token`,
    { id: f.clientId, secret: f.clientSecret, redirectUri: REDIRECT_URI },
    f.codes,
  );
}
