import { and, asc, desc, eq, isNull } from 'drizzle-orm';
import { randomId, randomToken, sha256Hex } from '../crypto/tokens.ts';
import type { Db } from '../db/open.ts';
import {
  applicationEnvironments,
  applications,
  clientSecrets,
  productionReviews,
  redirectUris,
} from '../db/schema/applications.ts';
import { NotFoundError } from '../errors.ts';
import { type Clock, unix } from '../platform/clock.ts';
import { CLIENT_ID_PREFIX, CLIENT_SECRET_PREFIX } from './credential-prefixes.ts';
import type { Environment } from './scope-rules.ts';

export type ApplicationType = 'confidential' | 'public';
export type PkceMode = 'required' | 'public-only';
export type ReviewStatus = 'pending' | 'approved' | 'rejected';

/** One application environment as the authorize and token endpoints need it. */
export interface ClientRecord {
  environmentId: string;
  applicationId: string;
  environment: Environment;
  clientId: string;
  name: string;
  type: ApplicationType;
  pkce: PkceMode;
  plan: string;
  fullNumberApproved: boolean;
  redirectUris: string[];
  scopes: string[];
  documentTypes: string[];
  documentCountries: string[];
}

interface ClientRow {
  environment_id: string;
  application_id: string;
  environment: Environment;
  client_id: string;
  name: string;
  type: ApplicationType;
  pkce: PkceMode;
  plan: string;
  full_number_approved: number;
  redirect_uris: string;
  scopes: string;
  document_types: string;
  document_countries: string;
}

// Hot path (every authorize and token request): one prepared statement, redirect URIs folded in.
const CLIENT_BY_ID = `SELECT e.id AS environment_id, e.application_id, e.environment, e.client_id, e.scopes,
    e.document_types, e.document_countries, a.name, a.type, a.pkce, a.plan, a.full_number_approved,
    (SELECT json_group_array(uri) FROM (SELECT uri FROM redirect_uris WHERE environment_id = e.id ORDER BY id))
      AS redirect_uris
  FROM application_environments e JOIN applications a ON a.id = e.application_id
  WHERE e.client_id = ?`;

/**
 * The client behind a `client_id`, or undefined. A client ID whose visible prefix does not match its
 * environment is treated as unknown, so a test credential never reaches a production client.
 */
export function findClientByClientId(db: Db, clientId: string): ClientRecord | undefined {
  const row = db.sql.prepare<ClientRow>(CLIENT_BY_ID).get(clientId);
  if (!row) return undefined;
  if (!row.client_id.startsWith(CLIENT_ID_PREFIX[row.environment])) return undefined;
  return {
    environmentId: row.environment_id,
    applicationId: row.application_id,
    environment: row.environment,
    clientId: row.client_id,
    name: row.name,
    type: row.type,
    pkce: row.pkce,
    plan: row.plan,
    fullNumberApproved: row.full_number_approved === 1,
    redirectUris: JSON.parse(row.redirect_uris) as string[],
    scopes: JSON.parse(row.scopes) as string[],
    documentTypes: JSON.parse(row.document_types) as string[],
    documentCountries: JSON.parse(row.document_countries) as string[],
  };
}

const ACTIVE_SECRETS = `SELECT s.secret_hash, e.environment FROM client_secrets s
  JOIN application_environments e ON e.id = s.environment_id
  WHERE s.environment_id = ? AND s.revoked_at IS NULL`;

/**
 * Whether `secret` is an active secret of this environment. Every active hash is compared in constant
 * time; a secret carrying the other environment's prefix never matches, with the same answer as an
 * unknown one.
 */
export async function verifyClientSecret(db: Db, environmentId: string, secret: string): Promise<boolean> {
  const hash = await sha256Hex(secret);
  const rows = db.sql
    .prepare<{ secret_hash: string; environment: Environment }>(ACTIVE_SECRETS)
    .all(environmentId);
  let match = false;
  for (const r of rows) {
    const equal = constantTimeEqualHex(r.secret_hash, hash);
    match = (equal && secret.startsWith(CLIENT_SECRET_PREFIX[r.environment])) || match;
  }
  return match;
}

/** Both sides are hex SHA-256 of equal length; no early exit. */
function constantTimeEqualHex(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

// ---- Read views (cold paths: CLI, portal) --------------------------------------------------------

export interface EnvironmentView {
  environment: Environment;
  clientId: string;
  scopes: string[];
  redirectUris: string[];
  documentTypes: string[];
  documentCountries: string[];
  /** How many secrets currently authenticate (0 for public clients). */
  activeSecrets: number;
  createdAt: number;
}

export interface ReviewView {
  reviewId: string;
  applicationId: string;
  status: ReviewStatus;
  justification: string;
  scopes: string[];
  fullNumberJustification: string | null;
  decisionReason: string | null;
  requestedBy: string | null;
  createdAt: number;
  decidedAt: number | null;
}

export interface ApplicationView {
  applicationId: string;
  name: string;
  type: ApplicationType;
  ownerDeveloperId: string | null;
  pkce: PkceMode;
  plan: string;
  fullNumberApproved: boolean;
  createdAt: number;
  updatedAt: number;
  /** Sandbox first; production only after an approved review. */
  environments: EnvironmentView[];
  /** The most recent production review, if any. */
  latestReview: ReviewView | null;
}

type ReviewRow = typeof productionReviews.$inferSelect;
export const toReviewView = (r: ReviewRow): ReviewView => ({
  reviewId: r.id,
  applicationId: r.applicationId,
  status: r.status,
  justification: r.justification,
  scopes: JSON.parse(r.scopes) as string[],
  fullNumberJustification: r.fullNumberJustification,
  decisionReason: r.decisionReason,
  requestedBy: r.requestedBy,
  createdAt: r.createdAt,
  decidedAt: r.decidedAt,
});

function environmentViews(db: Db, applicationId: string): EnvironmentView[] {
  const envs = db.orm
    .select()
    .from(applicationEnvironments)
    .where(eq(applicationEnvironments.applicationId, applicationId))
    .all()
    .sort((a, b) => (a.environment === b.environment ? 0 : a.environment === 'sandbox' ? -1 : 1));
  return envs.map((e) => ({
    environment: e.environment,
    clientId: e.clientId,
    scopes: JSON.parse(e.scopes) as string[],
    redirectUris: db.orm
      .select({ uri: redirectUris.uri })
      .from(redirectUris)
      .where(eq(redirectUris.environmentId, e.id))
      .orderBy(asc(redirectUris.id))
      .all()
      .map((r) => r.uri),
    documentTypes: JSON.parse(e.documentTypes) as string[],
    documentCountries: JSON.parse(e.documentCountries) as string[],
    activeSecrets: db.orm
      .select({ id: clientSecrets.id })
      .from(clientSecrets)
      .where(and(eq(clientSecrets.environmentId, e.id), isNull(clientSecrets.revokedAt)))
      .all().length,
    createdAt: e.createdAt,
  }));
}

function latestReview(db: Db, applicationId: string): ReviewView | null {
  const row = db.orm
    .select()
    .from(productionReviews)
    .where(eq(productionReviews.applicationId, applicationId))
    .orderBy(desc(productionReviews.createdAt), desc(productionReviews.id))
    .limit(1)
    .get();
  return row ? toReviewView(row) : null;
}

export function findApplication(db: Db, applicationId: string): ApplicationView | undefined {
  const app = db.orm.select().from(applications).where(eq(applications.id, applicationId)).get();
  if (!app) return undefined;
  return {
    applicationId: app.id,
    name: app.name,
    type: app.type,
    ownerDeveloperId: app.ownerDeveloperId,
    pkce: app.pkce,
    plan: app.plan,
    fullNumberApproved: app.fullNumberApproved,
    createdAt: app.createdAt,
    updatedAt: app.updatedAt,
    environments: environmentViews(db, app.id),
    latestReview: latestReview(db, app.id),
  };
}

export function getApplication(db: Db, applicationId: string): ApplicationView {
  const app = findApplication(db, applicationId);
  if (!app) throw new NotFoundError(`application ${applicationId} not found`);
  return app;
}

export function listApplications(db: Db, filter: { ownerDeveloperId?: string } = {}): ApplicationView[] {
  const ids = db.orm
    .select({ id: applications.id })
    .from(applications)
    .where(filter.ownerDeveloperId ? eq(applications.ownerDeveloperId, filter.ownerDeveloperId) : undefined)
    .orderBy(asc(applications.createdAt), asc(applications.id))
    .all();
  return ids.map((r) => getApplication(db, r.id));
}

export function listReviews(
  db: Db,
  filter: { status?: ReviewStatus; applicationId?: string } = {},
): ReviewView[] {
  return db.orm
    .select()
    .from(productionReviews)
    .where(
      and(
        filter.status ? eq(productionReviews.status, filter.status) : undefined,
        filter.applicationId ? eq(productionReviews.applicationId, filter.applicationId) : undefined,
      ),
    )
    .orderBy(asc(productionReviews.createdAt), asc(productionReviews.id))
    .all()
    .map(toReviewView);
}

// ---- Writes used by the domain functions (call inside their transaction) --------------------------

export interface EnvironmentRow {
  id: string;
  clientId: string;
  environment: Environment;
}

export function findEnvironment(
  db: Db,
  applicationId: string,
  environment: Environment,
): EnvironmentRow | undefined {
  return db.orm
    .select({
      id: applicationEnvironments.id,
      clientId: applicationEnvironments.clientId,
      environment: applicationEnvironments.environment,
    })
    .from(applicationEnvironments)
    .where(
      and(
        eq(applicationEnvironments.applicationId, applicationId),
        eq(applicationEnvironments.environment, environment),
      ),
    )
    .get();
}

/** A fresh client secret for `environment`: the clear value (printed once) and the hash to store. */
export async function newClientSecret(environment: Environment): Promise<{ secret: string; hash: string }> {
  const secret = randomToken(CLIENT_SECRET_PREFIX[environment]);
  return { secret, hash: await sha256Hex(secret) };
}

export function insertEnvironment(
  db: Db,
  clock: Clock,
  input: {
    applicationId: string;
    environment: Environment;
    scopes: readonly string[];
    redirectUris: readonly string[];
    documentTypes: readonly string[];
    documentCountries: readonly string[];
    secretHash?: string;
  },
): EnvironmentRow {
  const row: EnvironmentRow = {
    id: randomId('env_'),
    // Client IDs are public: 128 random bits are plenty to keep them unguessable and unique.
    clientId: randomToken(CLIENT_ID_PREFIX[input.environment], 16),
    environment: input.environment,
  };
  db.orm
    .insert(applicationEnvironments)
    .values({
      id: row.id,
      applicationId: input.applicationId,
      environment: input.environment,
      clientId: row.clientId,
      scopes: JSON.stringify(input.scopes),
      documentTypes: JSON.stringify(input.documentTypes),
      documentCountries: JSON.stringify(input.documentCountries),
      createdAt: unix(clock),
    })
    .run();
  replaceRedirectUris(db, row.id, input.redirectUris);
  if (input.secretHash) insertSecret(db, clock, row.id, input.secretHash);
  return row;
}

export function replaceRedirectUris(db: Db, environmentId: string, uris: readonly string[]): void {
  db.orm.delete(redirectUris).where(eq(redirectUris.environmentId, environmentId)).run();
  if (uris.length)
    db.orm
      .insert(redirectUris)
      .values(uris.map((uri) => ({ environmentId, uri })))
      .run();
}

export function insertSecret(db: Db, clock: Clock, environmentId: string, secretHash: string): void {
  db.orm
    .insert(clientSecrets)
    .values({ id: randomId('sec_'), environmentId, secretHash, createdAt: unix(clock) })
    .run();
}

/** Revokes every active secret of the environment at this instant. */
export function revokeSecrets(db: Db, clock: Clock, environmentId: string): number {
  return db.sql
    .prepare('UPDATE client_secrets SET revoked_at = ? WHERE environment_id = ? AND revoked_at IS NULL')
    .run(unix(clock), environmentId).changes;
}
