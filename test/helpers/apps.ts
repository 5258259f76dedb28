import type { AppContext } from '../../src/context.ts';
import { randomId, randomToken, sha256Hex } from '../../src/crypto/tokens.ts';
import { unix } from '../../src/platform/clock.ts';

export interface TestAppOptions {
  type: 'confidential' | 'public';
  redirectUris: string[];
  /** Enabled scopes of the environment (array or space-separated). */
  scopes: string[] | string;
  pkce?: 'required' | 'public-only';
  environment?: 'sandbox' | 'production';
  name?: string;
  plan?: string;
  /** Add this environment to an existing application instead of creating one. */
  applicationId?: string;
  /** Use this exact client secret (e.g. one with ':', '+', '%' or spaces) instead of a random one. */
  clientSecret?: string;
}

export interface TestApp {
  applicationId: string;
  environmentId: string;
  clientId: string;
  /** Only for confidential clients. */
  clientSecret?: string;
}

/**
 * Inserts an application environment with its redirect URIs and (for confidential clients) a secret,
 * straight into the database, bypassing registration rules so tests can build any shape they need.
 */
export async function createTestApp(ctx: AppContext, opts: TestAppOptions): Promise<TestApp> {
  const environment = opts.environment ?? 'sandbox';
  const live = environment === 'production';
  const now = unix(ctx.clock);
  const scopes = Array.isArray(opts.scopes) ? opts.scopes : opts.scopes.split(' ').filter(Boolean);
  const applicationId = opts.applicationId ?? randomId('app_');
  const environmentId = randomId('env_');
  const clientId = randomToken(live ? 'cid_live_' : 'cid_test_');
  const clientSecret =
    opts.type === 'confidential'
      ? (opts.clientSecret ?? randomToken(live ? 'cs_live_' : 'cs_test_'))
      : undefined;
  const secretHash = clientSecret === undefined ? undefined : await sha256Hex(clientSecret);
  const sql = ctx.db.sql;
  sql.transaction(() => {
    if (!opts.applicationId) {
      sql
        .prepare(
          `INSERT INTO applications (id, name, type, pkce, full_number_approved, plan, created_at, updated_at)
           VALUES (?, ?, ?, ?, 0, ?, ?, ?)`,
        )
        .run(
          applicationId,
          opts.name ?? 'Test App',
          opts.type,
          opts.pkce ?? 'required',
          opts.plan ?? 'default',
          now,
          now,
        );
    }
    sql
      .prepare(
        `INSERT INTO application_environments (id, application_id, environment, client_id, scopes, created_at)
         VALUES (?, ?, ?, ?, ?, ?)`,
      )
      .run(environmentId, applicationId, environment, clientId, JSON.stringify(scopes), now);
    for (const uri of opts.redirectUris) {
      sql.prepare('INSERT INTO redirect_uris (environment_id, uri) VALUES (?, ?)').run(environmentId, uri);
    }
    if (secretHash) {
      sql
        .prepare(
          'INSERT INTO client_secrets (id, environment_id, secret_hash, created_at) VALUES (?, ?, ?, ?)',
        )
        .run(randomId('sec_'), environmentId, secretHash, now);
    }
  });
  return { applicationId, environmentId, clientId, ...(clientSecret === undefined ? {} : { clientSecret }) };
}
