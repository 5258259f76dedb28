import type { ApplicationType, PkceMode } from '../apps/application.store.ts';
import { CLIENT_ID_PREFIX, CLIENT_SECRET_PREFIX } from '../apps/credential-prefixes.ts';
import { type AppContext, slot } from '../context.ts';
import { sha256HexSync } from '../crypto/digest.ts';
import { constantTimeEqual } from '../crypto/tokens.ts';
import { cachedEntry, type HeldCache, heldCache } from '../db/cache-versions.ts';
import type { Db } from '../db/open.ts';
import type { SqlRow } from '../db/row.ts';
import type { clientSecrets } from '../db/schema/applications.ts';
import type { Environment } from '../environment.ts';
import type { SigningAlg } from '../keys/signing-algs.ts';
import type { AssuranceLevel } from '../persons/assurance.ts';

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
  /** The lowest assurance level an authorization must reach when the request names none. */
  minimumAcr: AssuranceLevel | null;
  /** How this client's ID tokens are signed (RFC 7591 `id_token_signed_response_alg`). */
  idTokenSignedResponseAlg: SigningAlg;
  /** Privacy policy and terms links for the consent page, when registered. */
  policyUri: string | null;
  tosUri: string | null;
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
  minimum_acr: AssuranceLevel | null;
  id_token_signed_response_alg: SigningAlg;
  policy_uri: string | null;
  tos_uri: string | null;
}

// Prepared statements: these run on every authorize and token request. In a join, a parameter
// compared with a column is written CAST(? AS TEXT): with a bare `?` there, SQLite prepares the
// statement again on every run (constant propagation marks the parameter as able to change the
// plan), which made this lookup cost ten times as much. CROSS JOIN fixes SQLite's order: the client_id
// index, then the application by primary key (the join condition sits in WHERE, as PostgreSQL wants).
const CLIENT = `SELECT e.id AS environment_id, e.application_id, e.environment, e.client_id, e.scopes,
    e.minimum_acr, e.id_token_signed_response_alg, a.name, a.type, a.pkce, a.plan, a.full_number_approved,
    a.policy_uri, a.tos_uri
  FROM application_environments e CROSS JOIN applications a
  WHERE e.client_id = CAST(? AS TEXT) AND a.id = e.application_id`;
const REDIRECT_URIS = 'SELECT uri FROM redirect_uris WHERE environment_id = ? ORDER BY id';
const WEB_ORIGINS = 'SELECT origin FROM web_origins WHERE environment_id = ? ORDER BY id';
const ORIGIN_REGISTERED = 'SELECT EXISTS (SELECT 1 FROM web_origins WHERE origin = CAST(? AS TEXT)) AS known';
const POST_LOGOUT_URIS = 'SELECT uri FROM post_logout_redirect_uris WHERE environment_id = ? ORDER BY id';
const SECRETS = `SELECT secret_hash, revoked_at FROM client_secrets
  WHERE environment_id = ? AND (revoked_at IS NULL OR revoked_at > ?)`;

// Every token request reads its client and secrets, and every authorize request its client and
// redirect URIs; they change rarely. So they are kept per context (ctx.caches) and dropped whenever
// their cache version moves: triggers on every table read here bump it, whoever the writer (see
// migrations/0003). That check is one read of the database, made once per request (a request takes
// one `clientRegistry` and sees the clients as they were when it did). Inside a transaction the cache
// is bypassed, since what the transaction sees may yet be rolled back.
// Only clients that exist are kept; past this many (a registry larger than any expected), it restarts.
const MAX_ENTRIES = 10_000;

type SecretRow = Pick<SqlRow<typeof clientSecrets>, 'secret_hash' | 'revoked_at'>;

interface Cache {
  clients: Map<string, OAuthClient>;
  secrets: Map<string, SecretRow[]>;
  redirectUris: Map<string, readonly string[]>;
  webOrigins: Map<string, readonly string[]>;
  /** The origins some environment registered (CORS preflights). */
  knownOrigins: Map<string, true>;
  postLogoutUris: Map<string, readonly string[]>;
}

const CLIENTS = slot((): HeldCache<Cache> => ({}));

/** What the registry needs: the database, and the context's caches to keep clients in. */
type RegistryContext = Pick<AppContext, 'db' | 'caches'>;

const emptyCache = (): Cache => ({
  clients: new Map(),
  secrets: new Map(),
  redirectUris: new Map(),
  webOrigins: new Map(),
  knownOrigins: new Map(),
  postLogoutUris: new Map(),
});
const entries = (c: Cache) =>
  c.clients.size +
  c.secrets.size +
  c.redirectUris.size +
  c.postLogoutUris.size +
  c.webOrigins.size +
  c.knownOrigins.size;

const currentCache = ({ db, caches }: RegistryContext): Cache | undefined =>
  heldCache(db, 'clients', caches.get(CLIENTS), emptyCache, entries, MAX_ENTRIES);

export interface ClientRegistry {
  /**
   * The client behind a `client_id`, or undefined. Client IDs carry their environment in a visible
   * prefix; a mismatch is treated as unknown, so a test credential never reaches a production
   * client. The object is shared between requests: it is frozen.
   */
  client(clientId: string): OAuthClient | undefined;
  /** Registered redirect URIs of an environment, in the order they were added. */
  redirectUris(environmentId: string): readonly string[];
  /** Allowed web origins of an environment (normalised, as browsers send them). */
  webOrigins(environmentId: string): readonly string[];
  /** Whether any environment allows this web origin. */
  originRegistered(origin: string): boolean;
  /** Where RP-initiated logout may return to for this environment, in the order they were added. */
  postLogoutRedirectUris(environmentId: string): readonly string[];
  /**
   * Whether `secret` is a current secret of this client's environment. Every current hash is
   * compared in constant time, and only this environment's hashes are compared; a secret carrying
   * the other environment's prefix never matches (even against a tampered row), with the same
   * answer as an unknown one.
   */
  secretMatches(
    client: Pick<OAuthClient, 'environmentId' | 'environment'>,
    secret: string,
    now: number,
  ): boolean;
}

/** The registered clients as of now; take one per request. */
export function clientRegistry(ctx: RegistryContext): ClientRegistry {
  const { db } = ctx;
  const cache = currentCache(ctx);
  const uris = (map: Map<string, readonly string[]> | undefined, query: string, environmentId: string) =>
    cachedEntry(map, environmentId, () =>
      Object.freeze(
        db.sql
          .prepare<{ uri: string }>(query)
          .all(environmentId)
          .map((r) => r.uri),
      ),
    ) ?? [];
  return {
    client: (clientId) => cachedEntry(cache?.clients, clientId, () => loadClient(db, clientId)),
    redirectUris: (environmentId) => uris(cache?.redirectUris, REDIRECT_URIS, environmentId),
    postLogoutRedirectUris: (environmentId) => uris(cache?.postLogoutUris, POST_LOGOUT_URIS, environmentId),
    webOrigins: (environmentId) =>
      cachedEntry(cache?.webOrigins, environmentId, () =>
        Object.freeze(
          db.sql
            .prepare<{ origin: string }>(WEB_ORIGINS)
            .all(environmentId)
            .map((r) => r.origin),
        ),
      ) ?? [],
    originRegistered: (origin) =>
      cachedEntry(
        cache?.knownOrigins,
        origin,
        // Only a registered origin is kept: a preflight needs no credentials and counts against no
        // limit, so any other origin would be an unauthenticated write into this cache.
        () => db.sql.prepare<{ known: number }>(ORIGIN_REGISTERED).get(origin)?.known === 1 || undefined,
      ) ?? false,
    secretMatches(client, secret, now) {
      const hash = sha256HexSync(secret);
      const rows =
        cachedEntry(cache?.secrets, client.environmentId, () =>
          db.sql.prepare<SecretRow>(SECRETS).all(client.environmentId, now),
        ) ?? [];
      let match = false;
      for (const r of rows) {
        // A rotated secret stays valid until its revocation time: kept while that was ahead, checked now.
        if (r.revoked_at !== null && r.revoked_at <= now) continue;
        match = constantTimeEqual(r.secret_hash, hash) || match;
      }
      return match && secret.startsWith(CLIENT_SECRET_PREFIX[client.environment]);
    },
  };
}

export const findClient = (ctx: RegistryContext, clientId: string) => clientRegistry(ctx).client(clientId);

export const redirectUrisOf = (ctx: RegistryContext, environmentId: string) =>
  clientRegistry(ctx).redirectUris(environmentId);

export const verifyClientSecret = (
  ctx: RegistryContext,
  client: Pick<OAuthClient, 'environmentId' | 'environment'>,
  secret: string,
  now: number,
) => clientRegistry(ctx).secretMatches(client, secret, now);

function loadClient(db: Db, clientId: string): OAuthClient | undefined {
  const row = db.sql.prepare<ClientRow>(CLIENT).get(clientId);
  if (!row?.client_id.startsWith(CLIENT_ID_PREFIX[row.environment])) return undefined;
  return Object.freeze({
    environmentId: row.environment_id,
    applicationId: row.application_id,
    environment: row.environment,
    clientId: row.client_id,
    scopes: Object.freeze(JSON.parse(row.scopes) as string[]) as string[],
    name: row.name,
    type: row.type,
    pkce: row.pkce,
    plan: row.plan,
    fullNumberApproved: row.full_number_approved === 1,
    minimumAcr: row.minimum_acr,
    idTokenSignedResponseAlg: row.id_token_signed_response_alg,
    policyUri: row.policy_uri,
    tosUri: row.tos_uri,
  });
}
