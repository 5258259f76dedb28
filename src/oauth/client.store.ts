import type { Db } from '../db/open.ts';
import { sha256HexSync } from './digest.ts';

export type Environment = 'sandbox' | 'production';

/** An application environment as the OAuth endpoints see it: one client. */
export interface OAuthClient {
  environmentId: string;
  applicationId: string;
  environment: Environment;
  clientId: string;
  /** Enabled scopes of the environment. */
  scopes: string[];
  name: string;
  type: 'confidential' | 'public';
  pkce: 'required' | 'public-only';
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
  type: 'confidential' | 'public';
  pkce: 'required' | 'public-only';
  plan: string;
  full_number_approved: number;
}

// Prepared statements: these run on every authorize and token request.
const CLIENT = `SELECT e.id AS environment_id, e.application_id, e.environment, e.client_id, e.scopes,
    a.name, a.type, a.pkce, a.plan, a.full_number_approved
  FROM application_environments e JOIN applications a ON a.id = e.application_id
  WHERE e.client_id = ?`;
const REDIRECT_URIS = 'SELECT uri FROM redirect_uris WHERE environment_id = ?';
const SECRETS = `SELECT secret_hash FROM client_secrets
  WHERE environment_id = ? AND (revoked_at IS NULL OR revoked_at > ?)`;

/** Client ids carry their environment in a visible prefix; a mismatch is treated as unknown. */
const PREFIX: Record<Environment, string> = { sandbox: 'cid_test_', production: 'cid_live_' };

export function findClient(db: Db, clientId: string): OAuthClient | undefined {
  const row = db.sql.prepare<ClientRow>(CLIENT).get(clientId);
  if (!row?.client_id.startsWith(PREFIX[row.environment])) return undefined;
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

export function redirectUrisOf(db: Db, environmentId: string): string[] {
  return db.sql
    .prepare<{ uri: string }>(REDIRECT_URIS)
    .all(environmentId)
    .map((r) => r.uri);
}

/**
 * Whether `secret` is a current secret of this environment. Secrets of another environment never
 * match, because only this environment's hashes are compared.
 */
export function verifyClientSecret(db: Db, environmentId: string, secret: string, now: number): boolean {
  const hash = sha256HexSync(secret);
  const rows = db.sql.prepare<{ secret_hash: string }>(SECRETS).all(environmentId, now);
  let match = false;
  for (const r of rows) match = constantTimeEqual(r.secret_hash, hash) || match;
  return match;
}

/** Equal-length comparison without early exit (both sides are hex SHA-256). */
export function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
