import { z } from '../zod.ts';
import { addressRange, isLoopbackHost, listenAddress, publicUrlProblem } from './address.ts';
import { duration, optionalDuration } from './duration.ts';

// One strict object per TOML section, a default on every key: an empty file is a working sandbox,
// and a misspelt key is an error rather than silently ignored.

/** A text key with its default. */
const text = (fallback: string) => z._default(z.string(), fallback);
const flag = (fallback: boolean) => z._default(z.boolean(), fallback);
/** A whole number of at least 1. */
const count = (fallback: number) => z._default(z.int().check(z.positive()), fallback);

/** One TOML section: an empty or missing table takes every default; `refine` sees the whole section. */
function section<S extends z.core.$ZodLooseShape>(
  shape: S,
  refine?: (value: z.output<z.ZodMiniObject<S, z.core.$strict>>, ctx: z.core.$RefinementCtx) => void,
) {
  const object = z.strictObject(shape);
  return z.prefault(refine ? object.check(z.superRefine(refine)) : object, {} as z.input<typeof object>);
}

/** A public URL of Verity; '' where a default is derived from base_url. */
const url = (fallback: string) =>
  text(fallback).check(
    z.superRefine((v, ctx) => {
      const problem = v === '' ? undefined : publicUrlProblem(v);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    }),
    z.overwrite((v) => v.replace(/\/+$/, '')),
  );

/**
 * The first path segments of the API and the operations endpoints. A surface answers every path under
 * its own (its 404 page included), so it may not live under one of these (a test checks the list).
 */
export const API_SEGMENTS = ['v1', '.well-known', 'healthz', 'readyz', 'metrics', 'openapi.json'];

/** The address of a surface (identity experience, portal); '' where it is derived from base_url. */
const surfaceUrl = url('').check(
  z.superRefine((v, ctx) => {
    const segment = URL.canParse(v) ? new URL(v).pathname.split('/')[1] : undefined;
    if (segment !== undefined && API_SEGMENTS.includes(segment))
      ctx.addIssue({ code: 'custom', message: `must not lie under /${segment}, which the API serves` });
  }),
);

const PUBLIC_URLS = [
  ['server', 'base_url'],
  ['server', 'identity_url'],
  ['server', 'developer_url'],
  ['demo', 'url'],
] as const;

/** A secret of at least 32 bytes, or '' to have one generated into the keys directory. */
const secret = text('').check(
  z.refine(
    (v) => v === '' || new TextEncoder().encode(v).length >= 32,
    'must be at least 32 bytes (verity init writes a random one), or empty to have one generated',
  ),
);

const SIGNING_THREADS = 'must be "auto" or a whole number of threads from 0 to 256';

export const serverSchema = section({
  listen: listenAddress('127.0.0.1:8080'),
  base_url: url('http://localhost:8080').check(z.refine((v) => v !== '', 'must not be empty')),
  identity_url: surfaceUrl,
  developer_url: surfaceUrl,
  trust_proxy: text('').check(z.toLowerCase()),
  /** The peers whose `trust_proxy` header is believed, besides loopback ones: addresses or CIDR ranges. */
  trusted_proxies: z._default(z.array(addressRange), []),
  /** Plain-HTTP public URLs on a host other than loopback (a TLS-terminating proxy may hide it). */
  allow_http: flag(false),
  /** Bearer token for `/metrics` from other hosts; empty = loopback clients only. */
  metrics_token: text('').check(
    z.refine(
      (v) => v === '' || new TextEncoder().encode(v).length >= 32,
      'must be at least 32 bytes (e.g. `openssl rand -hex 32`), or empty to serve /metrics to loopback clients only',
    ),
  ),
  /** Threads that sign ID tokens: "auto" = one per core (none on one core), 0 = the serving thread. */
  signing_threads: z
    ._default(z.union([z.literal('auto'), z.number()], { error: SIGNING_THREADS }), 'auto')
    .check(z.refine((v) => v === 'auto' || (Number.isInteger(v) && v >= 0 && v <= 256), SIGNING_THREADS)),
});

export const databaseSchema = section({
  /** The SQLite file: the default engine. */
  path: z._default(z.string().check(z.minLength(1)), './data/verity.db'),
  /** A PostgreSQL URL (`postgres://user:password@host:5432/verity`); when set, it is used instead of `path`. */
  url: text('').check(
    z.refine((v) => v === '' || /^postgres(ql)?:\/\/[^/]+/.test(v), {
      message: 'must be a postgres:// or postgresql:// URL, or empty for SQLite at [database] path',
    }),
  ),
});

/**
 * How long relying parties may cache the JWKS (`Cache-Control: max-age`). A next key must be published
 * at least this long before it signs, or a relying party holding a cached key set rejects its tokens.
 */
export const JWKS_MAX_AGE_SECONDS = 300;

export const keysSchema = section({
  dir: z._default(z.string().check(z.minLength(1)), './data/keys'),
  rotate_every: duration('30d'),
  /**
   * A next key promoted sooner than relying parties refetch the JWKS would sign tokens that their
   * cached key set cannot verify.
   */
  publish_ahead: duration('1h').check(
    z.refine(
      (ms) => ms >= JWKS_MAX_AGE_SECONDS * 1000,
      `must be at least ${JWKS_MAX_AGE_SECONDS} seconds (the JWKS max-age: relying parties may cache the key set that long)`,
    ),
  ),
  rsa_bits: z
    ._default(z.int(), 2048)
    .check(z.refine((n) => n >= 2048 && n % 1024 === 0, 'must be 2048, 3072 or 4096')),
});

export const oauthSchema = section({
  code_ttl: duration('5m'),
  token_ttl: duration('15m'),
  purpose_max_length: count(300),
});

export const oidcSchema = section({
  /** Keys pairwise subjects; empty = generated once into the keys directory. */
  pairwise_secret: secret,
});

const limitOverride = z.strictObject({
  requests: z.optional(z.int().check(z.positive())),
  window: optionalDuration,
});
const limit = (requests: number, window: string) =>
  section({
    requests: count(requests),
    window: duration(window),
    /** Per-environment overrides: `[rate_limits.oauth.environments.production]`. */
    environments: z._default(z.partialRecord(z.enum(['sandbox', 'production']), limitOverride), {}),
    /** Per-plan overrides: `[rate_limits.oauth.plans.enterprise]`. */
    plans: z._default(z.record(z.string(), limitOverride), {}),
  });

export const rateLimitsSchema = section({
  oauth: limit(30, '10m'),
  userinfo: limit(600, '1m'),
  capabilities: limit(300, '1m'),
  developer: limit(120, '1m'),
  /** The hosted pages and the portal, per client address (no environment or plan applies). */
  web: section({ requests: count(300), window: duration('1m') }),
});

export const webhooksSchema = section({
  allow_localhost_in_sandbox: flag(false),
  timeout: duration('5s'),
  /** Encrypts signing secrets at rest; empty = generated once into the keys directory. */
  secret_key: secret,
  concurrency_per_endpoint: count(2),
  lease: duration('60s'),
});

export const faceSchema = section(
  {
    provider: z
      ._default(z.enum(['none', 'http', 'local']), 'none')
      // Accepted by the design but not built: it would silently behave like "none".
      .check(
        z.refine(
          (p) => p !== 'local',
          '"local" is not available yet (no on-box face provider exists): use "http" or "none"',
        ),
      ),
    http_url: text(''),
    http_token: text(''),
    timeout: duration('10s'),
    /** Face checks a person may fail in one authorization before it ends with access_denied. */
    attempts: z._default(z.int().check(z.minimum(1), z.maximum(10)), 3),
    /** A passed face check in the same signed-in session satisfies authorizations this long; 0: never. */
    reuse_within: duration('0s'),
  },
  (face, ctx) => {
    if (face.provider === 'http' && !URL.canParse(face.http_url)) {
      ctx.addIssue({
        code: 'custom',
        path: ['http_url'],
        message: 'must be an absolute URL when provider = "http"',
      });
    }
  },
);

export const consentSchema = section({ max_age: duration('365d') });

export const identitySchema = section({
  session_idle: duration('30m'),
  session_absolute: duration('12h'),
  interaction_ttl: duration('15m'),
  signin_attempts_per_account: count(5),
  signin_attempts_per_ip: count(20),
  signin_window: duration('15m'),
  /** Sandbox personas are offered only when true. */
  sandbox: flag(true),
});

export const developerSchema = section({
  signup: z._default(z.enum(['open', 'invite']), 'invite'),
  /** Open sign-ups and password-reset requests per client address per window. */
  signups_per_ip: count(5),
  signup_window: duration('1h'),
});

/** How Verity sends mail (developer address verification and password reset links). */
export const emailSchema = section(
  {
    transport: z._default(z.enum(['log', 'smtp']), 'log'),
    host: text(''),
    port: z._default(z.int().check(z.minimum(1), z.maximum(65535)), 587),
    /** Upgrade the connection with STARTTLS, and refuse to send without it; false = plain SMTP. */
    starttls: flag(true),
    user: text(''),
    password: text(''),
    from: text('Verity <verity@localhost>'),
  },
  (email, ctx) => {
    if (email.transport === 'smtp' && email.host === '')
      ctx.addIssue({ code: 'custom', path: ['host'], message: 'must be set when transport = "smtp"' });
    if (email.password !== '' && email.user === '')
      ctx.addIssue({ code: 'custom', path: ['user'], message: 'must be set when password is set' });
  },
);

/** The trust framework sandbox `verified_claims` name: it says the data is fictional test data. */
export const SANDBOX_TRUST_FRAMEWORK = 'verity_sandbox';

/**
 * Identity assurance (OpenID Connect for Identity Assurance 1.0). `trust_framework` names the framework
 * production identity verification follows; empty = no `verified_claims` in production. `proof_ttl` is
 * how long a signed document proof stays valid.
 */
export const assuranceSchema = section({
  trust_framework: text('').check(
    z.refine(
      (v) => v === '' || /^[A-Za-z0-9][A-Za-z0-9_.:/-]{0,199}$/.test(v),
      'must be an identifier such as "de_aml" or "https://example.com/frameworks/kyc" (letters, digits, _ . : / -), or empty',
    ),
    z.refine(
      (v) => v !== SANDBOX_TRUST_FRAMEWORK,
      `"${SANDBOX_TRUST_FRAMEWORK}" marks sandbox data and cannot name a production framework`,
    ),
  ),
  // Retired signing keys stay published this long, so a long one keeps more keys in the JWKS.
  proof_ttl: duration('30d').check(
    z.refine((ms) => ms >= 5 * 60_000 && ms <= 366 * 86_400_000, 'must be between "5m" and "366d"'),
  ),
});

/** The demo relying party (`verity demo`, and `npm start` next to the server). */
export const demoSchema = section({
  /** Whether `npm start` (`verity demo --with-server`) starts the demo beside the server. */
  enabled: flag(true),
  listen: listenAddress('127.0.0.1:8081'),
  /** The demo's own address as the browser sees it; default http://localhost:<listen port>. */
  url: url(''),
});

export const logSchema = section({
  level: z._default(z.enum(['debug', 'info', 'warn', 'error']), 'info'),
});

export const configSchema = z.pipe(
  z
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
      email: emailSchema,
      demo: demoSchema,
      log: logSchema,
      assurance: assuranceSchema,
    })
    // Runs even when other keys are wrong, so every problem is still reported at once.
    .check(
      z.superRefine(
        (c, ctx) => {
          const raw = c as unknown as Record<string, Record<string, unknown> | undefined>;
          // As the URL parser spells it: "HTTP://Host:80/" and "http://host" are one address.
          const surfaceUrl = (key: string, fallback: string) => {
            const v = raw.server?.[key];
            const url = typeof v === 'string' && v !== '' ? v : `${raw.server?.base_url}/${fallback}`;
            return URL.canParse(url) ? new URL(url).href : url;
          };
          // Two surfaces mounted at one address would answer each other's pages (both have /account).
          if (
            typeof raw.server?.base_url === 'string' &&
            surfaceUrl('identity_url', 'identity').replace(/\/+$/, '') ===
              surfaceUrl('developer_url', 'developer').replace(/\/+$/, '')
          )
            ctx.addIssue({
              code: 'custom',
              path: ['server', 'developer_url'],
              message:
                'must differ from identity_url: the identity experience and the portal need addresses of their own',
            });
          if (raw.server?.allow_http === true) return;
          for (const [section, key] of PUBLIC_URLS) {
            const v = raw[section]?.[key];
            if (typeof v !== 'string' || publicUrlProblem(v) !== undefined || v === '') continue;
            const u = new URL(v);
            if (u.protocol === 'http:' && !isLoopbackHost(u.hostname))
              ctx.addIssue({
                code: 'custom',
                path: [section, key],
                message: `plain http is allowed only on a loopback host (localhost, 127.0.0.1, [::1]); use https, or set [server] allow_http = true behind a TLS-terminating proxy`,
              });
          }
        },
        { when: () => true },
      ),
    ),
  z.transform((c) => ({
    ...c,
    server: {
      ...c.server,
      identity_url: c.server.identity_url || `${c.server.base_url}/identity`,
      developer_url: c.server.developer_url || `${c.server.base_url}/developer`,
    },
  })),
);

export type Config = z.output<typeof configSchema>;
export type RateLimitConfig = Config['rate_limits']['oauth'];
