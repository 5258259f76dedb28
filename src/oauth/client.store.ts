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

interface EnvironmentRow {
  environment_id: string;
  application_id: string;
  environment: Environment;
  client_id: string;
  scopes: string;
}

interface ApplicationRow {
  name: string;
  type: 'confidential' | 'public';
  pkce: 'required' | 'public-only';
  plan: string;
  full_number_approved: number;
}

// Prepared statements: these run on every authorize and token request. Two primary-key lookups rather
// than a join: without table statistics SQLite plans a join for large tables (building a Bloom filter
// on every run), which costs more than ten times the two lookups.
const ENVIRONMENT = `SELECT id AS environment_id, application_id, environment, client_id, scopes
  FROM application_environments WHERE client_id = ?`;
const APPLICATION = 'SELECT name, type, pkce, plan, full_number_approved FROM applications WHERE id = ?';
const REDIRECT_URIS = 'SELECT uri FROM redirect_uris WHERE environment_id = ?';
const SECRETS = `SELECT secret_hash FROM client_secrets
  WHERE environment_id = ? AND (revoked_at IS NULL OR revoked_at > ?)`;

/** Client ids carry their environment in a visible prefix; a mismatch is treated as unknown. */
const PREFIX: Record<Environment, string> = { sandbox: 'cid_test_', production: 'cid_live_' };

export function findClient(db: Db, clientId: string): OAuthClient | undefined {
  const env = db.sql.prepare<EnvironmentRow>(ENVIRONMENT).get(clientId);
  if (!env?.client_id.startsWith(PREFIX[env.environment])) return undefined;
  const app = db.sql.prepare<ApplicationRow>(APPLICATION).get(env.application_id);
  if (!app) return undefined;
  return {
    environmentId: env.environment_id,
    applicationId: env.application_id,
    environment: env.environment,
    clientId: env.client_id,
    scopes: JSON.parse(env.scopes) as string[],
    name: app.name,
    type: app.type,
    pkce: app.pkce,
    plan: app.plan,
    fullNumberApproved: app.full_number_approved === 1,
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
