import {
  type ApplicationView,
  type EnvironmentView,
  getApplication,
  listApplications,
  listReviews,
  type ReviewStatus,
  type ReviewView,
} from '../apps/application.store.ts';
import { rotateClientSecret } from '../apps/client-secret.ts';
import { ALL_COUNTRIES } from '../apps/document-policy-rules.ts';
import { environmentSettings } from '../apps/environment-settings.ts';
import { type ReviewChanges, reviewChanges, SETTING_KEYS } from '../apps/production-change.ts';
import { approveReview, rejectReview, requestProductionReview } from '../apps/production-review.ts';
import {
  createApplication,
  deleteApplication,
  type IssuedCredentials,
  updateApplication,
} from '../apps/registration.ts';
import { parseScopeList } from '../apps/scope-rules.ts';
import { securityEvent } from '../audit/security-events.ts';
import type { Db } from '../db/open.ts';
import { isoTime } from '../platform/clock.ts';
import {
  type Command,
  list,
  type ParsedArgs,
  positional,
  required,
  requiredEnvironment,
  str,
  UsageError,
  withContext,
} from './command.ts';

const environmentJson = (e: EnvironmentView) => ({
  ...environmentSettings(e),
  activeSecrets: e.activeSecrets,
  createdAt: isoTime(e.createdAt),
});

const reviewJson = (r: ReviewView, changes?: ReviewChanges) => ({
  reviewId: r.reviewId,
  applicationId: r.applicationId,
  status: r.status,
  justification: r.justification,
  scopes: r.scopes,
  redirectUris: r.redirectUris,
  webOrigins: r.webOrigins,
  postLogoutRedirectUris: r.postLogoutRedirectUris,
  documentTypes: r.documentTypes,
  documentCountries: r.documentCountries,
  /** Pending reviews: what approval would add to and remove from production as it is now. */
  changes: changes ?? null,
  fullNumberJustification: r.fullNumberJustification,
  decisionReason: r.decisionReason,
  requestedBy: r.requestedBy,
  createdAt: isoTime(r.createdAt),
  decidedAt: isoTime(r.decidedAt),
});

/** The application without any secret: secrets are shown only when issued. */
const applicationJson = (a: ApplicationView) => ({
  applicationId: a.applicationId,
  name: a.name,
  type: a.type,
  ownerDeveloperId: a.ownerDeveloperId,
  pkce: a.pkce,
  plan: a.plan,
  fullNumberApproved: a.fullNumberApproved,
  policyUri: a.policyUri,
  tosUri: a.tosUri,
  createdAt: isoTime(a.createdAt),
  updatedAt: isoTime(a.updatedAt),
  environments: a.environments.map(environmentJson),
  latestReview: a.latestReview && reviewJson(a.latestReview),
});

function pendingChanges(db: Db, r: ReviewView): ReviewChanges | undefined {
  if (r.status !== 'pending') return undefined;
  const app = getApplication(db, r.applicationId);
  const env = (name: string) => app.environments.find((e) => e.environment === name);
  return reviewChanges(r, env('production'), env('sandbox')!);
}

function changesText(changes: ReviewChanges): string {
  const list = (xs: string[]) => (xs.length === ALL_COUNTRIES.length ? 'all countries' : xs.join(' '));
  return SETTING_KEYS.map((key) => {
    const { added, removed } = changes[key];
    return [
      added.length ? `\n    ${key} added:   ${list(added)}` : '',
      removed.length ? `\n    ${key} removed: ${list(removed)}` : '',
    ].join('');
  }).join('');
}

const countries = (list: string[]) =>
  list.length === ALL_COUNTRIES.length ? 'all' : list.length ? list.join(' ') : 'none';

function applicationText(a: ApplicationView): string {
  const lines = [
    `${a.applicationId}  ${a.name}`,
    `  type: ${a.type}   pkce: ${a.pkce}   plan: ${a.plan}   owner: ${a.ownerDeveloperId ?? '-'}`,
    `  document_number_full approved: ${a.fullNumberApproved ? 'yes' : 'no'}`,
    `  privacy policy: ${a.policyUri ?? '-'}   terms: ${a.tosUri ?? '-'}`,
  ];
  for (const e of a.environments) {
    lines.push(
      `  ${e.environment}:`,
      `    client ID:      ${e.clientId}`,
      `    secrets:        ${a.type === 'public' ? 'none (public client)' : `${e.activeSecrets} active`}`,
      `    scopes:         ${e.scopes.join(' ')}`,
      `    redirect URIs:  ${e.redirectUris.join('\n                    ')}`,
      `    web origins:    ${e.webOrigins.join('\n                    ') || 'none'}`,
      `    post-logout:    ${e.postLogoutRedirectUris.join('\n                    ') || 'none'}`,
      `    document types: ${e.documentTypes.join(' ') || 'none'}`,
      `    countries:      ${countries(e.documentCountries)}`,
      `    minimum acr:    ${e.minimumAcr}`,
      `    ID token alg:   ${e.idTokenSignedResponseAlg}`,
    );
  }
  if (!a.environments.some((e) => e.environment === 'production'))
    lines.push('  production: not yet (after "verity apps review approve")');
  if (a.latestReview)
    lines.push(
      `  review: ${a.latestReview.status} (${isoTime(a.latestReview.createdAt)})` +
        (a.latestReview.decisionReason ? `: ${a.latestReview.decisionReason}` : ''),
    );
  return lines.join('\n');
}

function credentialsText(
  c: IssuedCredentials,
  heading: string,
  noSecret = '  no client secret (public client)',
): string {
  return [
    heading,
    `  client ID:     ${c.clientId}`,
    c.clientSecret
      ? `  client secret: ${c.clientSecret}\n  The secret is shown only now: store it in a secret manager.`
      : noSecret,
  ].join('\n');
}

/** "--owner none" clears the owner. */
const ownerFlag = (args: ParsedArgs): string | null | undefined => {
  const v = str(args, 'owner');
  return v === 'none' ? null : v;
};

const policyFlags = {
  'document-types': {
    type: 'string',
    description: 'document types the application may read, e.g. "passport id_card" ("none": none)',
  },
  'document-countries': {
    type: 'string',
    description: 'issuing countries it may read, e.g. "DE FR" ("none": none)',
  },
  pkce: { type: 'string', description: 'required (every client) or public-only (public clients)' },
  plan: { type: 'string', description: 'plan name that selects [rate_limits.*.plans.*] overrides' },
  'minimum-acr': {
    type: 'string',
    description: 'lowest assurance level when a request names none: none, low, substantial or high',
  },
  'id-token-alg': {
    type: 'string',
    description: 'how its ID tokens are signed (id_token_signed_response_alg): RS256, ES256 or EdDSA',
  },
  'policy-uri': {
    type: 'string',
    description: 'privacy policy link shown on the consent page ("" removes it)',
  },
  'tos-uri': {
    type: 'string',
    description: 'terms of service link shown on the consent page ("" removes it)',
  },
} as const;

export const appsCommands: Command[] = [
  {
    name: 'apps create',
    summary:
      'Register an application with its sandbox environment. Prints the client ID and, for confidential ' +
      'clients, the client secret (shown once). Document types and countries default to all ("none" allows none).',
    usage:
      '--name N --type confidential|public --redirect-uri U [--redirect-uri U2 ...] --scopes "s1 s2" ' +
      '[--web-origin ORIGIN ...] [--post-logout-redirect-uri U ...] [--owner DEVELOPER_ID] ' +
      '[--document-types "passport id_card"] ' +
      '[--document-countries "DE FR"] [--pkce required|public-only] [--plan P] [--policy-uri U] [--tos-uri U] ' +
      '[--minimum-acr LEVEL] [--id-token-alg RS256|ES256|EdDSA]',
    options: {
      name: { type: 'string', description: 'application name shown to persons on the consent page' },
      type: { type: 'string', description: 'confidential (has a client secret) or public (PKCE only)' },
      'redirect-uri': { type: 'string', multiple: true, description: 'an exact callback URL' },
      'web-origin': {
        type: 'string',
        multiple: true,
        description:
          'an origin whose pages may call the token and UserInfo endpoints, e.g. https://app.example',
      },
      'post-logout-redirect-uri': {
        type: 'string',
        multiple: true,
        description: 'an exact URL RP-initiated logout may return to (optional)',
      },
      scopes: { type: 'string', description: 'space-separated sandbox scopes, e.g. "openid email"' },
      owner: { type: 'string', description: 'the developer who owns it' },
      ...policyFlags,
    },
    async run(cli, args) {
      const name = required(args, 'name');
      const type = required(args, 'type');
      const redirectUris = list(args, 'redirect-uri');
      if (redirectUris.length === 0) throw new UsageError('--redirect-uri is required (repeat it for more)');
      const scopes = parseScopeList(required(args, 'scopes'));
      return withContext(cli, async (ctx) => {
        const created = await createApplication(ctx.db, ctx.clock, {
          name,
          type,
          redirectUris,
          postLogoutRedirectUris: list(args, 'post-logout-redirect-uri'),
          scopes,
          webOrigins: list(args, 'web-origin'),
          policyUri: str(args, 'policy-uri'),
          tosUri: str(args, 'tos-uri'),
          ownerDeveloperId: str(args, 'owner'),
          documentTypes: str(args, 'document-types'),
          documentCountries: str(args, 'document-countries'),
          minimumAcr: str(args, 'minimum-acr'),
          idTokenSignedResponseAlg: str(args, 'id-token-alg'),
          pkce: str(args, 'pkce'),
          plan: str(args, 'plan'),
          actor: 'cli',
        });
        cli.print(
          credentialsText(created, `Created application ${created.applicationId} (sandbox)`),
          created,
        );
        return 0;
      });
    },
  },
  {
    name: 'apps list',
    summary: 'List applications (optionally of one developer).',
    usage: '[--owner DEVELOPER_ID]',
    options: { owner: { type: 'string', description: 'only applications of this developer' } },
    async run(cli, args) {
      return withContext(cli, async (ctx) => {
        const apps = listApplications(ctx.db, { ownerDeveloperId: str(args, 'owner') });
        const human = apps
          .map(
            (a) =>
              `${a.applicationId}  ${a.type.padEnd(12)}  ${a.environments
                .map((e) => e.environment)
                .join('+')
                .padEnd(18)}  ${a.name}`,
          )
          .join('\n');
        cli.print(human || 'no applications', {
          applications: apps.map((a) => ({
            applicationId: a.applicationId,
            name: a.name,
            type: a.type,
            ownerDeveloperId: a.ownerDeveloperId,
            environments: a.environments.map((e) => ({ environment: e.environment, clientId: e.clientId })),
            reviewStatus: a.latestReview?.status ?? null,
            createdAt: isoTime(a.createdAt),
          })),
        });
        return 0;
      });
    },
  },
  {
    name: 'apps show',
    summary: 'Show an application: both environments, scopes, redirect URIs, document policy. Never secrets.',
    usage: 'APP_ID',
    async run(cli, args) {
      const id = positional(args, 0, 'APP_ID');
      return withContext(cli, async (ctx) => {
        const app = getApplication(ctx.db, id);
        cli.print(applicationText(app), applicationJson(app));
        return 0;
      });
    },
  },
  {
    name: 'apps update',
    summary:
      'Change an application. Name, owner, PKCE mode, plan and links are shared; redirect and post-logout ' +
      'URIs, web origins, scopes, document policy, the minimum acr and the ID token algorithm belong to one ' +
      'environment (--env, default sandbox). --redirect-uri, --post-logout-redirect-uri and --web-origin ' +
      'replace the whole set ("--web-origin none" removes every origin).',
    usage:
      'APP_ID [--name N] [--owner DEVELOPER_ID|none] [--pkce required|public-only] [--plan P] ' +
      '[--env sandbox|production] [--redirect-uri U ...] [--add-redirect-uri U ...] [--remove-redirect-uri U ...] ' +
      '[--post-logout-redirect-uri U ...] [--add-post-logout-redirect-uri U ...] ' +
      '[--remove-post-logout-redirect-uri U ...] ' +
      '[--web-origin ORIGIN ...] [--add-web-origin ORIGIN ...] [--remove-web-origin ORIGIN ...] ' +
      '[--scopes "s1 s2"] [--document-types T] [--document-countries C] [--policy-uri U] [--tos-uri U] ' +
      '[--minimum-acr LEVEL] [--id-token-alg RS256|ES256|EdDSA]',
    options: {
      name: { type: 'string', description: 'new application name' },
      owner: { type: 'string', description: 'new owning developer ("none" clears it)' },
      env: {
        type: 'string',
        description: 'environment whose URIs, scopes and policy change (default sandbox)',
      },
      'redirect-uri': { type: 'string', multiple: true, description: 'replaces every redirect URI' },
      'add-redirect-uri': { type: 'string', multiple: true, description: 'adds one redirect URI' },
      'remove-redirect-uri': { type: 'string', multiple: true, description: 'removes one redirect URI' },
      'web-origin': {
        type: 'string',
        multiple: true,
        description: 'replaces every web origin ("none": none)',
      },
      'add-web-origin': { type: 'string', multiple: true, description: 'adds one web origin' },
      'remove-web-origin': { type: 'string', multiple: true, description: 'removes one web origin' },
      'post-logout-redirect-uri': {
        type: 'string',
        multiple: true,
        description: 'replaces every post-logout redirect URI',
      },
      'add-post-logout-redirect-uri': {
        type: 'string',
        multiple: true,
        description: 'adds one post-logout redirect URI',
      },
      'remove-post-logout-redirect-uri': {
        type: 'string',
        multiple: true,
        description: 'removes one post-logout redirect URI',
      },
      scopes: { type: 'string', description: 'space-separated scopes, replacing the current set' },
      ...policyFlags,
    },
    async run(cli, args) {
      const id = positional(args, 0, 'APP_ID');
      const environment = requiredEnvironment(args, 'sandbox');
      const set = list(args, 'redirect-uri');
      const origins = list(args, 'web-origin');
      const postLogoutSet = list(args, 'post-logout-redirect-uri');
      const scopes = str(args, 'scopes');
      return withContext(cli, async (ctx) => {
        const app = updateApplication(ctx.db, ctx.clock, id, {
          name: str(args, 'name'),
          ownerDeveloperId: ownerFlag(args),
          pkce: str(args, 'pkce'),
          plan: str(args, 'plan'),
          environment,
          redirectUris: set.length ? set : undefined,
          addRedirectUris: list(args, 'add-redirect-uri'),
          removeRedirectUris: list(args, 'remove-redirect-uri'),
          webOrigins: origins.length ? origins.filter((o) => o !== 'none') : undefined,
          addWebOrigins: list(args, 'add-web-origin'),
          removeWebOrigins: list(args, 'remove-web-origin'),
          policyUri: str(args, 'policy-uri'),
          tosUri: str(args, 'tos-uri'),
          postLogoutRedirectUris: postLogoutSet.length ? postLogoutSet : undefined,
          addPostLogoutRedirectUris: list(args, 'add-post-logout-redirect-uri'),
          removePostLogoutRedirectUris: list(args, 'remove-post-logout-redirect-uri'),
          scopes: scopes === undefined ? undefined : parseScopeList(scopes),
          documentTypes: str(args, 'document-types'),
          documentCountries: str(args, 'document-countries'),
          minimumAcr: str(args, 'minimum-acr'),
          idTokenSignedResponseAlg: str(args, 'id-token-alg'),
          actor: 'cli',
        });
        cli.print(`Updated\n${applicationText(app)}`, applicationJson(app));
        return 0;
      });
    },
  },
  {
    name: 'apps delete',
    summary:
      'Delete an application with both environments, credentials, consents and webhook endpoints. Needs --yes.',
    usage: 'APP_ID --yes',
    options: { yes: { type: 'boolean', description: 'confirm the deletion' } },
    async run(cli, args) {
      const id = positional(args, 0, 'APP_ID');
      if (args.values.yes !== true)
        throw new UsageError(`deleting ${id} cannot be undone: add --yes to confirm`);
      return withContext(cli, async (ctx) => {
        deleteApplication(ctx.db, ctx.clock, id, { actor: 'cli' });
        cli.print(`Deleted application ${id}`, { applicationId: id, deleted: true });
        return 0;
      });
    },
  },
  {
    name: 'apps secret rotate',
    summary:
      'Issue a new client secret for one environment; the previous secret stops working at once. Shown once.',
    usage: 'APP_ID --env sandbox|production',
    options: { env: { type: 'string', description: 'sandbox or production' } },
    async run(cli, args) {
      const id = positional(args, 0, 'APP_ID');
      const environment = requiredEnvironment(args);
      return withContext(cli, async (ctx) => {
        const r = await rotateClientSecret(ctx.db, ctx.clock, id, environment, { actor: 'cli' });
        cli.print(
          `New ${environment} client secret for ${r.clientId}:\n  ${r.clientSecret}\nThe previous secret no longer works. The secret is shown only now.`,
          r,
        );
        return 0;
      });
    },
  },
  {
    name: 'apps review list',
    summary:
      'List production reviews (all, or only those with --status); a pending one shows what approving it ' +
      'adds to and removes from production (scopes, redirect URIs, web origins, document policy).',
    usage: '[--status pending|approved|rejected|withdrawn] [--app APP_ID]',
    options: {
      status: { type: 'string', description: 'pending, approved, rejected or withdrawn' },
      app: { type: 'string', description: 'only reviews of this application' },
    },
    async run(cli, args) {
      const status = str(args, 'status');
      if (status !== undefined && !['pending', 'approved', 'rejected', 'withdrawn'].includes(status))
        throw new UsageError(`--status must be pending, approved, rejected or withdrawn, not "${status}"`);
      return withContext(cli, async (ctx) => {
        const reviews = listReviews(ctx.db, {
          status: status as ReviewStatus | undefined,
          applicationId: str(args, 'app'),
        }).map((r) => ({ r, changes: pendingChanges(ctx.db, r) }));
        const human = reviews
          .map(
            ({ r, changes }) =>
              `${r.reviewId}  ${r.applicationId}  ${r.status.padEnd(9)}  ${isoTime(r.createdAt)}  scopes: ${r.scopes.join(' ')}\n` +
              `    justification: ${r.justification || '-'}` +
              (r.fullNumberJustification ? `\n    document_number_full: ${r.fullNumberJustification}` : '') +
              (changes ? changesText(changes) : '') +
              (r.status === 'pending'
                ? `\n    approve it: verity apps review approve ${r.applicationId} --review ${r.reviewId}`
                : '') +
              (r.decisionReason ? `\n    decision: ${r.decisionReason}` : ''),
          )
          .join('\n');
        cli.print(human || 'no reviews', {
          reviews: reviews.map(({ r, changes }) => reviewJson(r, changes)),
        });
        return 0;
      });
    },
  },
  {
    name: 'apps review request',
    summary:
      'File a production review for an application (normally done by its developer in the portal). ' +
      'Scopes default to the sandbox scopes; document_number_full needs --full-number-justification.',
    usage: 'APP_ID --justification TEXT [--scopes "s1 s2"] [--full-number-justification TEXT]',
    options: {
      justification: { type: 'string', description: 'why production access is needed' },
      scopes: {
        type: 'string',
        description: 'space-separated production scopes (default: the sandbox scopes)',
      },
      'full-number-justification': { type: 'string', description: 'why document_number_full is needed' },
    },
    async run(cli, args) {
      const id = positional(args, 0, 'APP_ID');
      const justification = required(args, 'justification');
      const scopes = str(args, 'scopes');
      return withContext(cli, async (ctx) => {
        const review = requestProductionReview(ctx.db, ctx.clock, id, {
          justification,
          scopes: scopes === undefined ? undefined : parseScopeList(scopes),
          fullNumberJustification: str(args, 'full-number-justification'),
          actor: 'cli',
        });
        securityEvent(ctx, 'review.requested', {
          applicationId: id,
          reviewId: review.reviewId,
          actor: 'cli',
        });
        cli.print(`Filed production review ${review.reviewId} for ${id} (pending)`, reviewJson(review));
        return 0;
      });
    },
  },
  {
    name: 'apps review approve',
    summary:
      'Approve the pending production review (or approve the sandbox scopes directly when none is pending). ' +
      'With --review, only that review, and only while it is pending: what "apps review list" showed. ' +
      'The first approval creates the production environment and prints its client ID; its developer reveals ' +
      'the client secret once in the portal (within 24 h), and --json prints it too for scripted approvals.',
    usage: 'APP_ID [--review REVIEW_ID] [--reason TEXT]',
    options: {
      review: {
        type: 'string',
        description: 'the pending review to approve (its id from "apps review list")',
      },
      reason: { type: 'string', description: 'note recorded with the approval' },
    },
    async run(cli, args) {
      const id = positional(args, 0, 'APP_ID');
      return withContext(cli, async (ctx) => {
        const before = getApplication(ctx.db, id);
        const hadProduction = before.environments.some((e) => e.environment === 'production');
        const r = await approveReview(ctx, id, {
          actor: 'cli',
          reason: str(args, 'reason'),
          reviewId: str(args, 'review'),
        });
        // The developer reveals the secret in the portal; only --json (scripted approvals) prints it.
        const revealed = r.clientSecret && before.ownerDeveloperId;
        cli.print(
          credentialsText(
            revealed ? { ...r, clientSecret: undefined } : r,
            !hadProduction
              ? `Approved: ${id} now has a production environment`
              : `Approved: production settings of ${id} updated`,
            hadProduction
              ? '  existing credentials unchanged'
              : revealed
                ? '  client secret: its developer can reveal it once in the portal within 24 hours'
                : undefined,
          ),
          r,
        );
        return 0;
      });
    },
  },
  {
    name: 'apps review reject',
    summary: 'Reject the pending production review with a reason the developer will see.',
    usage: 'APP_ID --reason TEXT',
    options: { reason: { type: 'string', description: 'why, shown to the developer' } },
    async run(cli, args) {
      const id = positional(args, 0, 'APP_ID');
      const reason = required(args, 'reason');
      return withContext(cli, async (ctx) => {
        const review = rejectReview(ctx.db, ctx.clock, id, { reason, actor: 'cli' });
        securityEvent(ctx, 'review.rejected', { applicationId: id, reviewId: review.reviewId, actor: 'cli' });
        cli.print(`Rejected production review ${review.reviewId} for ${id}`, reviewJson(review));
        return 0;
      });
    },
  },
];
