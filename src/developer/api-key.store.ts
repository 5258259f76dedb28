import { type AuditActor, recordAudit } from '../audit/audit.store.ts';
import { randomId, randomToken, sha256Hex, timingSafeEqual } from '../crypto/tokens.ts';
import type { Db } from '../db/open.ts';
import type { SqlRow } from '../db/row.ts';
import type { developerApiKeys } from '../db/schema/developers.ts';
import type { Environment } from '../environment.ts';
import { NotFoundError, ValidationError } from '../errors.ts';
import { type Clock, unix } from '../platform/clock.ts';

/** DESIGN.md §4: the environment is visible in the key so a leaked key is recognisable. */
export const API_KEY_PREFIX: Record<Environment, string> = { sandbox: 'dk_test_', production: 'dk_live_' };

/** Active keys a developer may hold per environment: the API limit is per developer, not per key. */
export const MAX_ACTIVE_KEYS = 10;

export interface ApiKeySummary {
  keyId: string;
  developerId: string;
  environment: Environment;
  label: string;
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
}

export interface AuthenticatedKey {
  keyId: string;
  developerId: string;
  environment: Environment;
}

type KeyRow = SqlRow<typeof developerApiKeys>;

const toSummary = (r: KeyRow): ApiKeySummary => ({
  keyId: r.id,
  developerId: r.developer_id,
  environment: r.environment,
  label: r.label,
  createdAt: r.created_at,
  lastUsedAt: r.last_used_at,
  revokedAt: r.revoked_at,
});

/**
 * Issues a developer API key for one environment. The clear key is returned once and only its SHA-256
 * is stored.
 */
export async function createApiKey(
  db: Db,
  clock: Clock,
  developerId: string,
  environment: Environment,
  opts: { label?: string; actor?: AuditActor } = {},
): Promise<{ keyId: string; key: string }> {
  if (environment !== 'sandbox' && environment !== 'production')
    throw new ValidationError('environment must be "sandbox" or "production"', [
      { path: 'environment', message: 'must be "sandbox" or "production"' },
    ]);
  const key = randomToken(API_KEY_PREFIX[environment]);
  const keyHash = await sha256Hex(key);
  const keyId = randomId('key_');
  db.sql.transaction(() => {
    const dev = db.sql
      .prepare<{ status: string }>('SELECT status FROM developers WHERE id = ?')
      .get(developerId);
    if (!dev) throw new NotFoundError(`developer ${developerId} not found`);
    if (dev.status !== 'active') throw new ValidationError(`developer ${developerId} is disabled`);
    const active = db.sql
      .prepare<{ n: number }>(
        'SELECT count(*) AS n FROM developer_api_keys WHERE developer_id = ? AND environment = ? AND revoked_at IS NULL',
      )
      .get(developerId, environment)!.n;
    if (active >= MAX_ACTIVE_KEYS)
      throw new ValidationError(`at most ${MAX_ACTIVE_KEYS} active ${environment} keys; revoke one first`, [
        { path: 'environment', message: 'too_many_keys' },
      ]);
    db.sql
      .prepare(
        'INSERT INTO developer_api_keys (id, developer_id, environment, key_hash, label, created_at) VALUES (?, ?, ?, ?, ?, ?)',
      )
      .run(keyId, developerId, environment, keyHash, opts.label ?? '', unix(clock));
    recordAudit(db, clock, {
      actor: opts.actor ?? `developer:${developerId}`,
      action: 'api_key.create',
      target: keyId,
      details: { developerId, environment },
    });
  });
  return { keyId, key };
}

/** Revokes a key at once. Revoking an already revoked key is a no-op that still succeeds. */
export function revokeApiKey(
  db: Db,
  clock: Clock,
  keyId: string,
  opts: { actor?: AuditActor } = {},
): ApiKeySummary {
  return db.sql.transaction(() => {
    const row = db.sql.prepare<KeyRow>('SELECT * FROM developer_api_keys WHERE id = ?').get(keyId);
    if (!row) throw new NotFoundError(`API key ${keyId} not found`);
    if (row.revoked_at === null) {
      const t = unix(clock);
      db.sql.prepare('UPDATE developer_api_keys SET revoked_at = ? WHERE id = ?').run(t, keyId);
      row.revoked_at = t;
      recordAudit(db, clock, {
        actor: opts.actor ?? `developer:${row.developer_id}`,
        action: 'api_key.revoke',
        target: keyId,
        details: { developerId: row.developer_id, environment: row.environment },
      });
    }
    return toSummary(row);
  });
}

export function listApiKeys(db: Db, developerId: string): ApiKeySummary[] {
  return db.sql
    .prepare<KeyRow>('SELECT * FROM developer_api_keys WHERE developer_id = ? ORDER BY created_at, id')
    .all(developerId)
    .map(toSummary);
}

/** Whether the key is still unrevoked and its developer active: asked again after a request's waits. */
export function apiKeyStands(db: Db, keyId: string): boolean {
  return (
    db.sql
      .prepare(
        `SELECT 1 AS one FROM developer_api_keys k JOIN developers d ON d.id = k.developer_id
         WHERE k.id = ? AND k.revoked_at IS NULL AND d.status = 'active'`,
      )
      .get(keyId) !== undefined
  );
}

/**
 * Resolves a presented `dk_…` key. Unknown, revoked, malformed keys, keys of a disabled developer, and
 * keys whose visible prefix names another environment than the one they were issued for all give
 * undefined, so callers answer them identically.
 */
export async function authenticateApiKey(
  db: Db,
  clock: Clock,
  presentedKey: string,
): Promise<AuthenticatedKey | undefined> {
  const environment = (Object.keys(API_KEY_PREFIX) as Environment[]).find((env) =>
    presentedKey.startsWith(API_KEY_PREFIX[env]),
  );
  // Hash before any early return so timing does not tell a malformed key from an unknown one.
  const hash = await sha256Hex(presentedKey);
  if (!environment || presentedKey.length > 200) return undefined;
  const row = db.sql
    .prepare<KeyRow & { status: string }>(
      `SELECT k.*, d.status FROM developer_api_keys k JOIN developers d ON d.id = k.developer_id
       WHERE k.key_hash = CAST(? AS TEXT)`,
    )
    .get(hash);
  // The lookup is by hash, so its timing says nothing about the key; the comparison guards the match.
  if (!row || !(await timingSafeEqual(row.key_hash, hash))) return undefined;
  if (row.revoked_at !== null || row.status !== 'active' || row.environment !== environment) return undefined;
  db.sql.prepare('UPDATE developer_api_keys SET last_used_at = ? WHERE id = ?').run(unix(clock), row.id);
  return { keyId: row.id, developerId: row.developer_id, environment: row.environment };
}
