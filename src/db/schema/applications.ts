import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { flag, time } from './columns.ts';
import { developers } from './developers.ts';

export const applications = sqliteTable('applications', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  type: text('type', { enum: ['confidential', 'public'] }).notNull(),
  ownerDeveloperId: text('owner_developer_id').references(() => developers.id, { onDelete: 'set null' }),
  /** "required" (every client) or "public-only" (confidential clients may skip PKCE). */
  pkce: text('pkce', { enum: ['required', 'public-only'] })
    .notNull()
    .default('required'),
  /** Operator approval needed before production may be granted `document_number_full`. */
  fullNumberApproved: flag('full_number_approved').notNull().default(false),
  plan: text('plan').notNull().default('default'),
  /** Optional links shown on the consent page (RFC 7591 names); not a widening, so never reviewed. */
  policyUri: text('policy_uri'),
  tosUri: text('tos_uri'),
  createdAt: time('created_at').notNull(),
  updatedAt: time('updated_at').notNull(),
});

/** Each application has a sandbox environment from creation and a production one after review. */
export const applicationEnvironments = sqliteTable(
  'application_environments',
  {
    id: text('id').primaryKey(),
    applicationId: text('application_id')
      .notNull()
      .references(() => applications.id, { onDelete: 'cascade' }),
    environment: text('environment', { enum: ['sandbox', 'production'] }).notNull(),
    clientId: text('client_id').notNull(),
    /** JSON array of enabled scopes. */
    scopes: text('scopes').notNull(),
    /** Document policy: JSON arrays; an empty array allows none. */
    documentTypes: text('document_types').notNull().default('[]'),
    documentCountries: text('document_countries').notNull().default('[]'),
    createdAt: time('created_at').notNull(),
    /** The lowest assurance level (acr) an authorization of this environment must reach; null: none. */
    minimumAcr: text('minimum_acr', { enum: ['none', 'low', 'substantial', 'high'] }),
    /** How this client's ID tokens are signed (RFC 7591 `id_token_signed_response_alg`). */
    idTokenSignedResponseAlg: text('id_token_signed_response_alg', { enum: ['RS256', 'ES256', 'EdDSA'] })
      .notNull()
      .default('RS256'),
  },
  (t) => [
    uniqueIndex('application_environments_client_id').on(t.clientId),
    uniqueIndex('application_environments_app_env').on(t.applicationId, t.environment),
  ],
);

export const redirectUris = sqliteTable(
  'redirect_uris',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    environmentId: text('environment_id')
      .notNull()
      .references(() => applicationEnvironments.id, { onDelete: 'cascade' }),
    uri: text('uri').notNull(),
  },
  (t) => [uniqueIndex('redirect_uris_env_uri').on(t.environmentId, t.uri)],
);

/** Origins (scheme://host[:port]) whose pages may call the token, UserInfo and documents endpoints. */
export const webOrigins = sqliteTable(
  'web_origins',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    environmentId: text('environment_id')
      .notNull()
      .references(() => applicationEnvironments.id, { onDelete: 'cascade' }),
    origin: text('origin').notNull(),
  },
  (t) => [
    uniqueIndex('web_origins_env_origin').on(t.environmentId, t.origin),
    // A CORS preflight names no client: it asks whether any environment registered the origin.
    index('web_origins_origin').on(t.origin),
  ],
);

/**
 * Where RP-initiated logout may send the browser back (`post_logout_redirect_uri`), per environment,
 * matched exactly like redirect URIs.
 */
export const postLogoutRedirectUris = sqliteTable(
  'post_logout_redirect_uris',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    environmentId: text('environment_id')
      .notNull()
      .references(() => applicationEnvironments.id, { onDelete: 'cascade' }),
    uri: text('uri').notNull(),
  },
  (t) => [uniqueIndex('post_logout_redirect_uris_env_uri').on(t.environmentId, t.uri)],
);

/** Only SHA-256 of a secret is kept; the clear value is printed once. */
export const clientSecrets = sqliteTable(
  'client_secrets',
  {
    id: text('id').primaryKey(),
    environmentId: text('environment_id')
      .notNull()
      .references(() => applicationEnvironments.id, { onDelete: 'cascade' }),
    secretHash: text('secret_hash').notNull(),
    createdAt: time('created_at').notNull(),
    revokedAt: time('revoked_at'),
  },
  (t) => [index('client_secrets_env').on(t.environmentId)],
);

export const productionReviews = sqliteTable(
  'production_reviews',
  {
    id: text('id').primaryKey(),
    applicationId: text('application_id')
      .notNull()
      .references(() => applications.id, { onDelete: 'cascade' }),
    /** `withdrawn`: a later edit by the developer no longer asked for anything wider. */
    status: text('status', { enum: ['pending', 'approved', 'rejected', 'withdrawn'] }).notNull(),
    justification: text('justification').notNull().default(''),
    /** JSON array of the scopes asked for production. */
    scopes: text('scopes').notNull().default('[]'),
    /**
     * JSON arrays of the production redirect URIs and document policy asked for; NULL keeps what
     * production has (or, for the first review, takes the sandbox's).
     */
    redirectUris: text('redirect_uris'),
    webOrigins: text('web_origins'),
    postLogoutRedirectUris: text('post_logout_redirect_uris'),
    documentTypes: text('document_types'),
    documentCountries: text('document_countries'),
    fullNumberJustification: text('full_number_justification'),
    decisionReason: text('decision_reason'),
    requestedBy: text('requested_by'),
    createdAt: time('created_at').notNull(),
    decidedAt: time('decided_at'),
    /** Insertion order: reviews of one application filed within a second keep the order they came in. */
    seq: integer('seq').notNull().default(0),
  },
  (t) => [index('production_reviews_app').on(t.applicationId), index('production_reviews_seq').on(t.seq)],
);

/**
 * The production client secret issued at approval, sealed, until its developer reveals it once in
 * the portal or it expires. Deleted by the reveal itself, so it can be shown at most once.
 */
export const productionSecretReveals = sqliteTable(
  'production_secret_reveals',
  {
    applicationId: text('application_id')
      .primaryKey()
      .references(() => applications.id, { onDelete: 'cascade' }),
    sealedSecret: text('sealed_secret').notNull(),
    createdAt: time('created_at').notNull(),
    expiresAt: time('expires_at').notNull(),
  },
  (t) => [index('production_secret_reveals_expiry').on(t.expiresAt)],
);
