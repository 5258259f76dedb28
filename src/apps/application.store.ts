import { and, asc, desc, eq, isNull, sql } from 'drizzle-orm';
import { randomId, randomToken, sha256Hex } from '../crypto/tokens.ts';
import type { Db } from '../db/open.ts';
import {
  applicationEnvironments,
  applications,
  clientSecrets,
  postLogoutRedirectUris,
  productionReviews,
  redirectUris,
  webOrigins,
} from '../db/schema/applications.ts';
import type { Environment } from '../environment.ts';
import { NotFoundError } from '../errors.ts';
import type { SigningAlg } from '../keys/signing-algs.ts';
import type { AssuranceLevel } from '../persons/assurance.ts';
import { type Clock, unix } from '../platform/clock.ts';
import { CLIENT_ID_PREFIX, CLIENT_SECRET_PREFIX } from './credential-prefixes.ts';

export type ApplicationType = 'confidential' | 'public';
export type PkceMode = 'required' | 'public-only';
export type ReviewStatus = 'pending' | 'approved' | 'rejected' | 'withdrawn';

// ---- Read views (cold paths: CLI, portal) --------------------------------------------------------

export interface EnvironmentView {
  environment: Environment;
  clientId: string;
  scopes: string[];
  redirectUris: string[];
  /** Normalised origins whose pages may call the token, UserInfo and documents endpoints (CORS). */
  webOrigins: string[];
  /** Where RP-initiated logout may return to; possibly none. */
  postLogoutRedirectUris: string[];
  documentTypes: string[];
  documentCountries: string[];
  /** The lowest acr an authorization must reach when the request names none ("none": no minimum). */
  minimumAcr: AssuranceLevel;
  /** How the environment's ID tokens are signed (RFC 7591 `id_token_signed_response_alg`). */
  idTokenSignedResponseAlg: SigningAlg;
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
  /** null: production keeps its own (the first review takes the sandbox's). */
  redirectUris: string[] | null;
  webOrigins: string[] | null;
  postLogoutRedirectUris: string[] | null;
  documentTypes: string[] | null;
  documentCountries: string[] | null;
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
  /** Privacy policy and terms of service links shown on the consent page. */
  policyUri: string | null;
  tosUri: string | null;
  createdAt: number;
  updatedAt: number;
  /** Sandbox first; production only after an approved review. */
  environments: EnvironmentView[];
  /** The most recent production review, if any. */
  latestReview: ReviewView | null;
}

export type ApplicationInsert = typeof applications.$inferInsert;
export type EnvironmentInsert = typeof applicationEnvironments.$inferInsert;
/** A review as the domain sees it; `seq` (insertion order) is the store's alone. */
export type ReviewRow = Omit<typeof productionReviews.$inferSelect, 'seq'>;
export type ReviewInsert = Omit<typeof productionReviews.$inferInsert, 'seq'>;
const jsonList = (v: string | null) => (v === null ? null : (JSON.parse(v) as string[]));
export const toReviewView = (r: ReviewRow): ReviewView => ({
  reviewId: r.id,
  applicationId: r.applicationId,
  status: r.status,
  justification: r.justification,
  scopes: JSON.parse(r.scopes) as string[],
  redirectUris: jsonList(r.redirectUris),
  webOrigins: jsonList(r.webOrigins),
  postLogoutRedirectUris: jsonList(r.postLogoutRedirectUris),
  documentTypes: jsonList(r.documentTypes),
  documentCountries: jsonList(r.documentCountries),
  fullNumberJustification: r.fullNumberJustification,
  decisionReason: r.decisionReason,
  requestedBy: r.requestedBy,
  createdAt: r.createdAt,
  decidedAt: r.decidedAt,
});

type UriTable = typeof redirectUris | typeof postLogoutRedirectUris;

const urisOf = (db: Db, table: UriTable, environmentId: string) =>
  db.orm
    .select({ uri: table.uri })
    .from(table)
    .where(eq(table.environmentId, environmentId))
    .orderBy(asc(table.id))
    .all()
    .map((r) => r.uri);

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
    redirectUris: urisOf(db, redirectUris, e.id),
    postLogoutRedirectUris: urisOf(db, postLogoutRedirectUris, e.id),
    webOrigins: db.orm
      .select({ origin: webOrigins.origin })
      .from(webOrigins)
      .where(eq(webOrigins.environmentId, e.id))
      .orderBy(asc(webOrigins.id))
      .all()
      .map((r) => r.origin),
    documentTypes: JSON.parse(e.documentTypes) as string[],
    documentCountries: JSON.parse(e.documentCountries) as string[],
    minimumAcr: e.minimumAcr ?? 'none',
    idTokenSignedResponseAlg: e.idTokenSignedResponseAlg,
    activeSecrets: db.orm
      .select({ id: clientSecrets.id })
      .from(clientSecrets)
      .where(and(eq(clientSecrets.environmentId, e.id), isNull(clientSecrets.revokedAt)))
      .all().length,
    createdAt: e.createdAt,
  }));
}

// Reviews of one second in the order they were made, on both engines (PostgreSQL has no rowid): one
// review is pending at a time, so the undecided one came last, and decided ones follow their decisions.
const reviewOrder = [productionReviews.createdAt, productionReviews.seq];

function latestReview(db: Db, applicationId: string): ReviewView | null {
  const row = db.orm
    .select()
    .from(productionReviews)
    .where(eq(productionReviews.applicationId, applicationId))
    .orderBy(...reviewOrder.map((c) => desc(c)))
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
    policyUri: app.policyUri,
    tosUri: app.tosUri,
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
    .orderBy(...reviewOrder.map((c) => asc(c)))
    .all()
    .map(toReviewView);
}

// ---- Writes used by the domain functions (call inside their transaction) --------------------------

export type EnvironmentRow = Pick<
  typeof applicationEnvironments.$inferSelect,
  'id' | 'clientId' | 'environment'
>;

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
    webOrigins: readonly string[];
    postLogoutRedirectUris?: readonly string[];
    documentTypes: readonly string[];
    documentCountries: readonly string[];
    minimumAcr?: AssuranceLevel;
    idTokenSignedResponseAlg?: SigningAlg;
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
      minimumAcr: input.minimumAcr ?? null,
      idTokenSignedResponseAlg: input.idTokenSignedResponseAlg,
      createdAt: unix(clock),
    })
    .run();
  replaceRedirectUris(db, row.id, input.redirectUris);
  replaceWebOrigins(db, row.id, input.webOrigins);
  replacePostLogoutRedirectUris(db, row.id, input.postLogoutRedirectUris ?? []);
  if (input.secretHash) insertSecret(db, clock, row.id, input.secretHash);
  return row;
}

function replaceUris(db: Db, table: UriTable, environmentId: string, uris: readonly string[]): void {
  db.orm.delete(table).where(eq(table.environmentId, environmentId)).run();
  if (uris.length)
    db.orm
      .insert(table)
      .values(uris.map((uri) => ({ environmentId, uri })))
      .run();
}

export function replaceWebOrigins(db: Db, environmentId: string, origins: readonly string[]): void {
  db.orm.delete(webOrigins).where(eq(webOrigins.environmentId, environmentId)).run();
  if (origins.length)
    db.orm
      .insert(webOrigins)
      .values(origins.map((origin) => ({ environmentId, origin })))
      .run();
}

export const replaceRedirectUris = (db: Db, environmentId: string, uris: readonly string[]) =>
  replaceUris(db, redirectUris, environmentId, uris);

export const replacePostLogoutRedirectUris = (db: Db, environmentId: string, uris: readonly string[]) =>
  replaceUris(db, postLogoutRedirectUris, environmentId, uris);

export function insertSecret(db: Db, clock: Clock, environmentId: string, secretHash: string): void {
  db.orm
    .insert(clientSecrets)
    .values({ id: randomId('sec_'), environmentId, secretHash, createdAt: unix(clock) })
    .run();
}

export function insertApplication(db: Db, row: ApplicationInsert): void {
  db.orm.insert(applications).values(row).run();
}

export function setApplicationFields(
  db: Db,
  applicationId: string,
  fields: Partial<ApplicationInsert>,
): void {
  db.orm.update(applications).set(fields).where(eq(applications.id, applicationId)).run();
}

export function setEnvironmentFields(
  db: Db,
  environmentId: string,
  fields: Partial<EnvironmentInsert>,
): void {
  db.orm
    .update(applicationEnvironments)
    .set(fields)
    .where(eq(applicationEnvironments.id, environmentId))
    .run();
}

/** Deletes the application; the schema cascades to its environments, credentials, consents and tokens. */
export function deleteApplicationRow(db: Db, applicationId: string): { name: string } | undefined {
  const app = db.orm
    .select({ name: applications.name })
    .from(applications)
    .where(eq(applications.id, applicationId))
    .get();
  if (app) db.orm.delete(applications).where(eq(applications.id, applicationId)).run();
  return app;
}

export function findPendingReview(db: Db, applicationId: string): ReviewRow | undefined {
  return db.orm
    .select()
    .from(productionReviews)
    .where(and(eq(productionReviews.applicationId, applicationId), eq(productionReviews.status, 'pending')))
    .get();
}

export function insertReview(db: Db, row: ReviewInsert): void {
  db.orm
    .insert(productionReviews)
    .values({ ...row, seq: sql`(SELECT coalesce(max(seq), 0) + 1 FROM production_reviews)` })
    .run();
}

export function setReviewFields(db: Db, reviewId: string, fields: Partial<ReviewInsert>): void {
  db.orm.update(productionReviews).set(fields).where(eq(productionReviews.id, reviewId)).run();
}

/** Whether the developer owns the application and it has this environment. */
export function ownsApplicationIn(
  db: Db,
  developerId: string,
  environment: Environment,
  applicationId: string,
): boolean {
  const row = db.sql
    .prepare<{ owner: string | null; has_env: number }>(
      `SELECT a.owner_developer_id AS owner,
              EXISTS (SELECT 1 FROM application_environments x WHERE x.application_id = a.id AND x.environment = ?) AS has_env
       FROM applications a WHERE a.id = ?`,
    )
    .get(environment, applicationId);
  return row?.owner === developerId && row.has_env === 1;
}

/** Revokes every active client secret of every application the developer owns, at this instant. */
export function revokeOwnerSecrets(db: Db, clock: Clock, developerId: string): number {
  return db.sql
    .prepare(
      `UPDATE client_secrets SET revoked_at = ? WHERE revoked_at IS NULL AND environment_id IN (
         SELECT e.id FROM application_environments e JOIN applications a ON a.id = e.application_id
         WHERE a.owner_developer_id = ?)`,
    )
    .run(unix(clock), developerId).changes;
}

/**
 * Deletes every redirect URI, post-logout redirect URI and web origin of every application the
 * developer owns, and their policy and terms links; returns how many addresses.
 */
export function clearOwnerAddresses(db: Db, developerId: string): number {
  const owned = `environment_id IN (SELECT e.id FROM application_environments e
     JOIN applications a ON a.id = e.application_id WHERE a.owner_developer_id = ?)`;
  let cleared = 0;
  for (const table of ['redirect_uris', 'post_logout_redirect_uris', 'web_origins'])
    cleared += db.sql.prepare(`DELETE FROM ${table} WHERE ${owned}`).run(developerId).changes;
  const links = db.sql
    .prepare(
      `UPDATE applications SET policy_uri = NULL, tos_uri = NULL
       WHERE owner_developer_id = ? AND (policy_uri IS NOT NULL OR tos_uri IS NOT NULL)`,
    )
    .run(developerId).changes;
  return cleared + links;
}

/** Revokes every active secret of the environment at this instant. */
export function revokeSecrets(db: Db, clock: Clock, environmentId: string): number {
  return db.sql
    .prepare('UPDATE client_secrets SET revoked_at = ? WHERE environment_id = ? AND revoked_at IS NULL')
    .run(unix(clock), environmentId).changes;
}
