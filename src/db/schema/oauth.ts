import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { applicationEnvironments } from './applications.ts';
import { flag, time } from './columns.ts';
import { consents } from './consents.ts';
import { persons } from './persons.ts';

/** A validated authorize request waiting for the person to sign in, pass face assurance and consent. */
export const authorizationRequests = sqliteTable(
  'authorization_requests',
  {
    id: text('id').primaryKey(),
    environmentId: text('environment_id')
      .notNull()
      .references(() => applicationEnvironments.id, { onDelete: 'cascade' }),
    /** The browser session the request is bound to (sessions.id_hash). */
    sessionIdHash: text('session_id_hash'),
    redirectUri: text('redirect_uri').notNull(),
    scopes: text('scopes').notNull(),
    state: text('state').notNull(),
    nonce: text('nonce'),
    codeChallenge: text('code_challenge'),
    purpose: text('purpose').notNull().default(''),
    display: text('display', { enum: ['page', 'popup'] })
      .notNull()
      .default('page'),
    prompt: text('prompt'),
    maxAge: integer('max_age'),
    loginHint: text('login_hint'),
    uiLocales: text('ui_locales'),
    /** The lowest assurance level the request accepts (acr_values and the environment's minimum). */
    requiredAcr: text('required_acr', { enum: ['none', 'low', 'substantial', 'high'] }),
    /** The checked `claims` parameter (OIDC Core §5.5), as normalised JSON; null when none was sent. */
    claims: text('claims'),
    /** The pairwise `sub` of the request's verified `id_token_hint`: only that person may answer it. */
    idTokenHintSub: text('id_token_hint_sub'),
    personId: text('person_id').references(() => persons.id, { onDelete: 'cascade' }),
    authTime: time('auth_time'),
    amr: text('amr').notNull().default('[]'),
    acr: text('acr'),
    livenessVerified: flag('liveness_verified'),
    faceMatchVerified: flag('face_match_verified'),
    /** Failed face checks so far, counted up to `[face] attempts` by one conditional UPDATE each. */
    faceFailures: integer('face_failures').notNull().default(0),
    /**
     * When the last face check was counted: once `[face] attempts` are counted, a check that started
     * longer than the provider's timeout ago and left no answer was cut off (a crash, a restart).
     */
    faceCheckStartedAt: time('face_check_started_at'),
    /**
     * The face step's current challenge (identity/face/challenge.ts) and when it was made: one check
     * may use it, within FACE_CHALLENGE_SECONDS; the step shows it again until it is older than
     * FACE_CHALLENGE_REUSE_SECONDS, then replaces it.
     */
    faceChallenge: text('face_challenge'),
    faceChallengeIssuedAt: time('face_challenge_issued_at'),
    /** Why the last face check failed, for the face step shown again. */
    lastFaceFailure: text('last_face_failure', { enum: ['liveness_failed', 'face_match_failed'] }),
    status: text('status', {
      enum: ['pending', 'authenticated', 'face_passed', 'completed', 'denied', 'failed'],
    })
      .notNull()
      .default('pending'),
    createdAt: time('created_at').notNull(),
    expiresAt: time('expires_at').notNull(),
  },
  (t) => [index('authorization_requests_expires').on(t.expiresAt)],
);

export const authorizationCodes = sqliteTable(
  'authorization_codes',
  {
    /** The time-ordered id the code carries (crypto/located-secret.ts); the code itself only hashed. */
    id: text('id').primaryKey(),
    codeHash: text('code_hash').notNull(),
    environmentId: text('environment_id')
      .notNull()
      .references(() => applicationEnvironments.id, { onDelete: 'cascade' }),
    clientId: text('client_id').notNull(),
    redirectUri: text('redirect_uri').notNull(),
    codeChallenge: text('code_challenge'),
    nonce: text('nonce'),
    scopes: text('scopes').notNull(),
    consentId: text('consent_id')
      .notNull()
      .references(() => consents.id, { onDelete: 'cascade' }),
    personId: text('person_id')
      .notNull()
      .references(() => persons.id, { onDelete: 'cascade' }),
    authTime: time('auth_time').notNull(),
    acr: text('acr').notNull(),
    amr: text('amr').notNull(),
    livenessVerified: flag('liveness_verified').notNull(),
    faceMatchVerified: flag('face_match_verified').notNull(),
    /** The request's `claims` parameter, carried to the ID token and the access token. */
    claims: text('claims'),
    createdAt: time('created_at').notNull(),
    expiresAt: time('expires_at').notNull(),
    usedAt: time('used_at'),
    /** The access token issued from the code, so a replayed code revokes it. */
    tokenId: text('token_id'),
  },
  (t) => [index('authorization_codes_expires').on(t.expiresAt)],
);

export const accessTokens = sqliteTable(
  'access_tokens',
  {
    /** The time-ordered id the token carries (crypto/located-secret.ts); the token itself only hashed. */
    id: text('id').primaryKey(),
    tokenHash: text('token_hash').notNull(),
    environmentId: text('environment_id')
      .notNull()
      .references(() => applicationEnvironments.id, { onDelete: 'cascade' }),
    consentId: text('consent_id')
      .notNull()
      .references(() => consents.id, { onDelete: 'cascade' }),
    personId: text('person_id')
      .notNull()
      .references(() => persons.id, { onDelete: 'cascade' }),
    scopes: text('scopes').notNull(),
    acr: text('acr').notNull(),
    livenessVerified: flag('liveness_verified').notNull(),
    faceMatchVerified: flag('face_match_verified').notNull(),
    /** The request's `claims` parameter: what UserInfo adds (`userinfo` member). */
    claims: text('claims'),
    createdAt: time('created_at').notNull(),
    expiresAt: time('expires_at').notNull(),
    revokedAt: time('revoked_at'),
  },
  (t) => [index('access_tokens_consent').on(t.consentId), index('access_tokens_expires').on(t.expiresAt)],
);
