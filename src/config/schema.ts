import { z } from 'zod';
import { JWKS_MAX_AGE_SECONDS } from '../keys/jwks-cache.ts';
import { duration, parseDuration } from './duration.ts';

// One strict object per TOML section, a default on every key: an empty file is a working sandbox,
// and a misspelt key is an error rather than silently ignored.

const url = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .refine((v) => v === '' || URL.canParse(v), 'must be an absolute URL')
    .transform((v) => v.replace(/\/+$/, ''));

export const serverSchema = z
  .strictObject({
    listen: z
      .string()
      .default('127.0.0.1:8080')
      .refine((v) => /^(\[[^\]]+\]|[^:]+):\d{1,5}$/.test(v), 'must be host:port'),
    base_url: url('http://localhost:8080').refine((v) => v !== '', 'must not be empty'),
    identity_url: url(''),
    developer_url: url(''),
    trust_proxy: z
      .string()
      .default('')
      .transform((v) => v.toLowerCase()),
  })
  .prefault({});

export const databaseSchema = z
  .strictObject({ path: z.string().min(1).default('./data/verity.db') })
  .prefault({});

export const keysSchema = z
  .strictObject({
    dir: z.string().min(1).default('./data/keys'),
    rotate_every: duration('30d'),
    /**
     * A next key promoted sooner than relying parties refetch the JWKS would sign tokens that their
     * cached key set cannot verify.
     */
    publish_ahead: duration('1h').refine(
      (ms) => ms >= JWKS_MAX_AGE_SECONDS * 1000,
      `must be at least ${JWKS_MAX_AGE_SECONDS} seconds (the JWKS max-age: relying parties may cache the key set that long)`,
    ),
    rsa_bits: z
      .number()
      .int()
      .default(2048)
      .refine((n) => n >= 2048 && n % 1024 === 0, 'must be 2048, 3072 or 4096'),
  })
  .prefault({});

export const oauthSchema = z
  .strictObject({
    code_ttl: duration('5m'),
    token_ttl: duration('15m'),
    purpose_max_length: z.number().int().positive().default(300),
  })
  .prefault({});

export const oidcSchema = z
  .strictObject({
    /** Keys pairwise subjects; empty = generated once into the keys directory. */
    pairwise_secret: z.string().default(''),
  })
  .prefault({});

const limitOverride = z.strictObject({
  requests: z.number().int().positive().optional(),
  window: z
    .string()
    .refine((v) => parseDuration(v) !== undefined, 'must be a duration like "90s", "10m", "12h" or "30d"')
    .optional(),
});
const limit = (requests: number, window: string) =>
  z
    .strictObject({
      requests: z.number().int().positive().default(requests),
      window: duration(window),
      /** Per-environment overrides: `[rate_limits.oauth.environments.production]`. */
      environments: z.partialRecord(z.enum(['sandbox', 'production']), limitOverride).default({}),
      /** Per-plan overrides: `[rate_limits.oauth.plans.enterprise]`. */
      plans: z.record(z.string(), limitOverride).default({}),
    })
    .prefault({});

export const rateLimitsSchema = z
  .strictObject({
    oauth: limit(30, '10m'),
    userinfo: limit(600, '1m'),
    capabilities: limit(300, '1m'),
    developer: limit(120, '1m'),
    /** The hosted pages and the portal, per client address (no environment or plan applies). */
    web: z
      .strictObject({ requests: z.number().int().positive().default(300), window: duration('1m') })
      .prefault({}),
  })
  .prefault({});

export const webhooksSchema = z
  .strictObject({
    allow_localhost_in_sandbox: z.boolean().default(false),
    timeout: duration('5s'),
    /** Encrypts signing secrets at rest; empty = generated once into the keys directory. */
    secret_key: z.string().default(''),
    concurrency_per_endpoint: z.number().int().positive().default(2),
    lease: duration('60s'),
  })
  .prefault({});

export const faceSchema = z
  .strictObject({
    provider: z.enum(['none', 'http', 'local']).default('none'),
    http_url: z.string().default(''),
    http_token: z.string().default(''),
    timeout: duration('10s'),
  })
  .superRefine((face, ctx) => {
    if (face.provider === 'http' && !URL.canParse(face.http_url)) {
      ctx.addIssue({
        code: 'custom',
        path: ['http_url'],
        message: 'must be an absolute URL when provider = "http"',
      });
    }
  })
  .prefault({});

export const consentSchema = z.strictObject({ max_age: duration('365d') }).prefault({});

export const identitySchema = z
  .strictObject({
    session_idle: duration('30m'),
    session_absolute: duration('12h'),
    interaction_ttl: duration('15m'),
    signin_attempts_per_account: z.number().int().positive().default(5),
    signin_attempts_per_ip: z.number().int().positive().default(20),
    signin_window: duration('15m'),
    /** Sandbox personas are offered only when true. */
    sandbox: z.boolean().default(true),
  })
  .prefault({});

export const developerSchema = z
  .strictObject({
    signup: z.enum(['open', 'invite']).default('invite'),
  })
  .prefault({});

/** The demo relying party (`verity demo`, and `npm start` next to the server). */
export const demoSchema = z
  .strictObject({
    /** Whether `npm start` (`verity demo --with-server`) starts the demo beside the server. */
    enabled: z.boolean().default(true),
    listen: z
      .string()
      .default('127.0.0.1:8081')
      .refine((v) => /^(\[[^\]]+\]|[^:]+):\d{1,5}$/.test(v), 'must be host:port'),
    /** The demo's own address as the browser sees it; default http://localhost:<listen port>. */
    url: url(''),
  })
  .prefault({});

export const logSchema = z
  .strictObject({
    level: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
  })
  .prefault({});

export const configSchema = z
  .strictObject({
    server: serverSchema,
    database: databaseSchema,
    keys: keysSchema,
    oauth: oauthSchema,
    oidc: oidcSchema,
    rate_limits: rateLimitsSchema,
    webhooks: webhooksSchema,
    face: faceSchema,
    consent: consentSchema,
    identity: identitySchema,
    developer: developerSchema,
    demo: demoSchema,
    log: logSchema,
  })
  .transform((c) => ({
    ...c,
    server: {
      ...c.server,
      identity_url: c.server.identity_url || `${c.server.base_url}/identity`,
      developer_url: c.server.developer_url || `${c.server.base_url}/developer`,
    },
  }));

export type Config = z.output<typeof configSchema>;
export type RateLimitConfig = Config['rate_limits']['oauth'];
