import type { ApplicationType, PkceMode } from '../apps/application.store.ts';
import { CLIENT_ID_PREFIX, CLIENT_SECRET_PREFIX } from '../apps/credential-prefixes.ts';
import type { Environment } from '../apps/scope-rules.ts';
import { sha256HexSync } from '../crypto/digest.ts';
import { constantTimeEqual } from '../crypto/tokens.ts';
import type { Db } from '../db/open.ts';

/** An application environment as the OAuth endpoints see it: one client. */
export interface OAuthClient {
  environmentId: string;
  applicationId: string;
  environment: Environment;
  clientId: string;
  /** Enabled scopes of the environment. */
  scopes: string[];
  name: string;
  type: ApplicationType;
  pkce: PkceMode;
  plan: string;
  fullNumberApproved: boolean;
}

interface ClientRow {
  environment_id: string;
  application_id: string;
  environment: Environment;
  client_id: string;
  scopes: string;
  name: string;
  type: ApplicationType;
  pkce: PkceMode;
  plan: string;
  full_number_approved: number;
}

// Prepared statements: these run on every authorize and token request. In a join, a parameter
// compared with a column is written CAST(? AS TEXT): with a bare `?` there, SQLite prepares the
// statement again on every run (constant propagation marks the parameter as able to change the
// plan), which made this lookup cost ten times as much. CROSS JOIN fixes the order: the client_id
// index, then the application by primary key.
const CLIENT = `SELECT e.id AS environment_id, e.application_id, e.environment, e.client_id, e.scopes,
    a.name, a.type, a.pkce, a.plan, a.full_number_approved
  FROM application_environments e CROSS JOIN applications a ON a.id = e.application_id
  WHERE e.client_id = CAST(? AS TEXT)`;
const REDIRECT_URIS = 'SELECT uri FROM redirect_uris WHERE environment_id = ? ORDER BY id';
const SECRETS = `SELECT secret_hash FROM client_secrets
  WHERE environment_id = ? AND (revoked_at IS NULL OR revoked_at > ?)`;

/**
 * The client behind a `client_id`, or undefined. Client IDs carry their environment in a visible
 * prefix; a mismatch is treated as unknown, so a test credential never reaches a production client.
 */
export function findClient(db: Db, clientId: string): OAuthClient | undefined {
  const row = db.sql.prepare<ClientRow>(CLIENT).get(clientId);
  if (!row?.client_id.startsWith(CLIENT_ID_PREFIX[row.environment])) return undefined;
  return {
    environmentId: row.environment_id,
    applicationId: row.application_id,
    environment: row.environment,
    clientId: row.client_id,
    scopes: JSON.parse(row.scopes) as string[],
    name: row.name,
    type: row.type,
    pkce: row.pkce,
    plan: row.plan,
    fullNumberApproved: row.full_number_approved === 1,
  };
}

/** Registered redirect URIs of an environment, in the order they were added. */
export function redirectUrisOf(db: Db, environmentId: string): string[] {
  return db.sql
    .prepare<{ uri: string }>(REDIRECT_URIS)
    .all(environmentId)
    .map((r) => r.uri);
}

/**
 * Whether `secret` is a current secret of this client's environment. Every current hash is compared
 * in constant time, and only this environment's hashes are compared; a secret carrying the other
 * environment's prefix never matches (even against a tampered row), with the same answer as an
 * unknown one.
 */
export function verifyClientSecret(
  db: Db,
  client: Pick<OAuthClient, 'environmentId' | 'environment'>,
  secret: string,
  now: number,
): boolean {
  const hash = sha256HexSync(secret);
  const rows = db.sql.prepare<{ secret_hash: string }>(SECRETS).all(client.environmentId, now);
  let match = false;
  for (const r of rows) match = constantTimeEqual(r.secret_hash, hash) || match;
  return match && secret.startsWith(CLIENT_SECRET_PREFIX[client.environment]);
}
