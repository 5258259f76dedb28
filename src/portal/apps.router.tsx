/** @jsxImportSource hono/jsx */
import { Hono } from 'hono';
import { z } from 'zod';
import { type ApplicationView, type EnvironmentView, listApplications } from '../apps/application.store.ts';
import { rotateClientSecret } from '../apps/client-secret.ts';
import { ALL_COUNTRIES, DOCUMENT_TYPES } from '../apps/document-policy-rules.ts';
import { reviewChanges } from '../apps/production-change.ts';
import { requestProductionReview } from '../apps/production-review.ts';
import { productionSecretRevealableUntil, revealProductionSecret } from '../apps/production-secret.ts';
import { createApplication, deleteApplication, updateApplication } from '../apps/registration.ts';
import { securityEvent } from '../audit/security-events.ts';
import { base64url } from '../crypto/encoding.ts';
import { randomToken, sha256 } from '../crypto/tokens.ts';
import { NotFoundError } from '../errors.ts';
import { DEFAULT_SIGNING_ALG } from '../keys/signing-algs.ts';
import { many, readForm } from '../web/form.ts';
import { requireVerified } from './account.ts';
import { attempt, type Env, isEnv, type PC, type Portal, type PortalEnv } from './env.ts';
import { AlreadyShownPage } from './pages/already-shown.page.tsx';
import { AppPage } from './pages/app-detail.page.tsx';
import { AppFormPage, type AppFormValues } from './pages/app-form.page.tsx';
import { AppsListPage } from './pages/app-list.page.tsx';
import { ReviewPage } from './pages/app-review.page.tsx';
import { SecretShownPage } from './pages/app-secret.page.tsx';
import { ConfirmPage } from './pages/confirm.page.tsx';
import { GonePage } from './pages/gone.page.tsx';
import type { FieldErrors } from './pages/layout.tsx';

const multi = z
  .union([z.string(), z.array(z.string())])
  .optional()
  .transform(many);

const appForm = z.object({
  name: z.string().max(1000),
  type: z.string().max(40).optional(),
  redirect_uris: z.string().max(50_000).default(''),
  web_origins: z.string().max(10_000).default(''),
  policy_uri: z.string().max(2000).default(''),
  tos_uri: z.string().max(2000).default(''),
  post_logout_redirect_uris: z.string().max(50_000).default(''),
  scopes: multi,
  document_types: multi,
  document_countries: z.string().max(5000).default(''),
  minimum_acr: z.string().max(40).default('none'),
  id_token_alg: z.string().max(40).default(DEFAULT_SIGNING_ALG),
  // Production edits only: read when the edit widens production and so files a review.
  justification: z.string().max(10_000).default(''),
  full_number_justification: z.string().max(10_000).default(''),
});

const reviewForm = z.object({
  justification: z.string().max(10_000).default(''),
  scopes: multi,
  full_number_justification: z.string().max(10_000).default(''),
});

/** Domain rule paths → form field ids. */
function fieldOf(path: string): string {
  if (path.startsWith('redirectUris')) return 'redirect_uris';
  if (path.startsWith('webOrigins')) return 'web_origins';
  if (path === 'policyUri') return 'policy_uri';
  if (path === 'tosUri') return 'tos_uri';
  if (path.startsWith('postLogoutRedirectUris')) return 'post_logout_redirect_uris';
  if (path === 'documentTypes') return 'document_types';
  if (path === 'documentCountries') return 'document_countries';
  if (path === 'minimumAcr') return 'minimum_acr';
  if (path === 'idTokenSignedResponseAlg') return 'id_token_alg';
  if (path === 'fullNumberJustification') return 'full_number_justification';
  if (['name', 'type', 'scopes', 'justification'].includes(path)) return path;
  return '';
}

const lines = (text: string) =>
  text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);

const countriesText = (codes: readonly string[]) =>
  codes.length === ALL_COUNTRIES.length ? 'all' : codes.length === 0 ? 'none' : codes.join(' ');

type AppForm = z.infer<typeof appForm>;

/** The environment settings a submitted form asks for, as creating and editing both take them. */
const settingsOf = (f: AppForm) => ({
  redirectUris: lines(f.redirect_uris),
  webOrigins: lines(f.web_origins),
  policyUri: f.policy_uri,
  tosUri: f.tos_uri,
  postLogoutRedirectUris: lines(f.post_logout_redirect_uris),
  scopes: f.scopes,
  documentTypes: f.document_types.length ? f.document_types : 'none',
  documentCountries: f.document_countries.trim() || 'none',
  minimumAcr: f.minimum_acr,
  idTokenSignedResponseAlg: f.id_token_alg,
});

/** A submitted form shown again as it was typed, next to its errors. */
const typedValues = (f: AppForm, type: AppFormValues['type']): AppFormValues => ({
  name: f.name,
  type,
  redirectUris: f.redirect_uris,
  webOrigins: f.web_origins,
  policyUri: f.policy_uri,
  tosUri: f.tos_uri,
  postLogoutRedirectUris: f.post_logout_redirect_uris,
  scopes: f.scopes,
  documentTypes: f.document_types,
  documentCountries: f.document_countries,
  minimumAcr: f.minimum_acr,
  idTokenAlg: f.id_token_alg,
  justification: f.justification,
  fullNumberJustification: f.full_number_justification,
});

/** The form of an environment; production shows what its pending review asks for, to edit further. */
const valuesOf = (env: EnvironmentView, app: ApplicationView): AppFormValues => {
  const review =
    app.latestReview?.status === 'pending' && env.environment === 'production' ? app.latestReview : undefined;
  return {
    name: app.name,
    type: app.type,
    redirectUris: (review?.redirectUris ?? env.redirectUris).join('\n'),
    webOrigins: (review?.webOrigins ?? env.webOrigins).join('\n'),
    policyUri: app.policyUri ?? '',
    tosUri: app.tosUri ?? '',
    postLogoutRedirectUris: (review?.postLogoutRedirectUris ?? env.postLogoutRedirectUris).join('\n'),
    scopes: review?.scopes ?? env.scopes,
    documentTypes: review?.documentTypes ?? env.documentTypes,
    documentCountries: countriesText(review?.documentCountries ?? env.documentCountries),
    minimumAcr: env.minimumAcr,
    idTokenAlg: env.idTokenSignedResponseAlg,
    justification: review?.justification ?? '',
    fullNumberJustification: review?.fullNumberJustification ?? '',
  };
};

/** A client secret just issued, kept for the page that shows it once. */
interface SecretResult {
  shown: 'created' | 'rotated' | 'revealed';
  /** Absent for a public client. */
  clientSecret?: string;
}

/** Applications: list, create, show, edit, delete, client secret rotation, production review. */
export function appsRoutes(p: Portal) {
  const { ctx, base } = p;
  const app = new Hono<PortalEnv>();
  const appHref = (id: string, env: Env = 'sandbox') =>
    `${base}/apps/${id}${env === 'sandbox' ? '' : `?env=${env}`}`;
  const actor = (c: PC) => `developer:${p.me(c).developerId}` as const;
  // Forms that issue a secret redirect to its page, which shows it once (POST-redirect-GET).
  const showSecret = async (c: PC, applicationId: string, env: Env, result: SecretResult) => {
    await p.keep(c, `client-secret:${applicationId}:${env}`, result);
    return c.redirect(`${base}/apps/${applicationId}/secret?env=${env}`, 303);
  };

  /** The environment named by `?env=` (sandbox by default); one the application lacks is a 404. */
  const envOf = (c: PC, a: ApplicationView): EnvironmentView => {
    const name = c.req.query('env') ?? 'sandbox';
    const env = isEnv(name) ? a.environments.find((e) => e.environment === name) : undefined;
    if (!env) throw new NotFoundError();
    return env;
  };

  app.get('/apps', (c) => {
    const apps = listApplications(ctx.db, { ownerDeveloperId: p.me(c).developerId });
    const notice = c.req.query('deleted') ? p.props(c).m.appDeleted : undefined;
    return c.html(<AppsListPage {...p.props(c, 'apps')} apps={apps} notice={notice} />);
  });

  const createForm = (c: PC, values: AppFormValues, errors?: FieldErrors, status = 200) =>
    c.html(
      <AppFormPage
        {...p.props(c, 'apps')}
        mode="create"
        environment="sandbox"
        action={`${base}/apps`}
        cancelHref={`${base}/apps`}
        values={values}
        errors={errors}
      />,
      status as 200,
    );

  app.get('/apps/new', (c) =>
    createForm(c, {
      name: '',
      type: 'confidential',
      redirectUris: '',
      webOrigins: '',
      policyUri: '',
      tosUri: '',
      postLogoutRedirectUris: '',
      scopes: ['openid'],
      documentTypes: [...DOCUMENT_TYPES],
      documentCountries: 'all',
      minimumAcr: 'none',
      idTokenAlg: DEFAULT_SIGNING_ALG,
    }),
  );

  app.post('/apps', async (c) => {
    const f = await readForm(c, appForm);
    const dev = p.me(c);
    const result = await attempt(
      () =>
        createApplication(ctx.db, ctx.clock, {
          name: f.name,
          type: f.type ?? '',
          ...settingsOf(f),
          ownerDeveloperId: dev.developerId,
          actor: actor(c),
        }),
      fieldOf,
      'name',
    );
    if (!result.ok)
      return createForm(
        c,
        typedValues(f, f.type === 'public' ? 'public' : 'confidential'),
        result.errors,
        400,
      );
    return showSecret(c, result.value.applicationId, 'sandbox', {
      shown: 'created',
      clientSecret: result.value.clientSecret,
    });
  });

  app.get('/apps/:id/secret', async (c) => {
    const a = p.ownApp(c, c.req.param('id'));
    const env = envOf(c, a);
    const props = p.props(c, 'apps');
    const { m } = props;
    const back = appHref(a.applicationId, env.environment);
    const result = await p.take<SecretResult>(c, `client-secret:${a.applicationId}:${env.environment}`);
    if (!result) return c.html(<AlreadyShownPage {...props} backHref={back} />, 410);
    const titles = {
      created: m.appCreatedTitle,
      rotated: m.secretRotatedTitle,
      revealed: m.productionSecretTitle,
    };
    return c.html(
      <SecretShownPage
        {...props}
        title={titles[result.shown]}
        intro={result.shown === 'created' ? m.appCreated : undefined}
        appHref={back}
        clientId={env.clientId}
        clientSecret={result.clientSecret}
      />,
    );
  });

  app.get('/apps/:id', async (c) => {
    const a = p.ownApp(c, c.req.param('id'));
    const env = envOf(c, a);
    const m = p.props(c).m;
    const issuer = ctx.config.server.base_url;
    const redirectUri = env.redirectUris[0];
    let authorizationUrl: string | undefined;
    let codeVerifier: string | undefined;
    if (redirectUri) {
      codeVerifier = randomToken('', 32);
      const q = new URLSearchParams({
        response_type: 'code',
        client_id: env.clientId,
        redirect_uri: redirectUri,
        scope: env.scopes.join(' '),
        state: randomToken('', 32),
        nonce: randomToken('', 32),
        code_challenge: base64url(await sha256(codeVerifier)),
        code_challenge_method: 'S256',
      });
      authorizationUrl = `${issuer}/v1/oauth/authorize?${q}`;
    }
    const notice = c.req.query('updated')
      ? m.appUpdated
      : c.req.query('pending')
        ? m.changePending
        : c.req.query('review')
          ? m.reviewSubmitted
          : undefined;
    const review = a.latestReview?.status === 'pending' ? a.latestReview : undefined;
    const production = a.environments.find((e) => e.environment === 'production');
    const sandbox = a.environments.find((e) => e.environment === 'sandbox')!;
    return c.html(
      <AppPage
        {...p.props(c, 'apps')}
        app={a}
        env={env}
        notice={notice}
        pendingChanges={review && production ? reviewChanges(review, production, sandbox) : undefined}
        revealUntil={productionSecretRevealableUntil(ctx, a.applicationId)}
        integration={{
          issuer,
          discoveryUrl: `${issuer}/.well-known/openid-configuration`,
          authorizationUrl,
          codeVerifier,
        }}
      />,
    );
  });

  const editForm = (
    c: PC,
    a: ApplicationView,
    env: Env,
    values: AppFormValues,
    errors?: FieldErrors,
    status = 200,
  ) =>
    c.html(
      <AppFormPage
        {...p.props(c, 'apps')}
        mode="edit"
        environment={env}
        action={`${base}/apps/${a.applicationId}/edit?env=${env}`}
        cancelHref={appHref(a.applicationId, env)}
        values={values}
        errors={errors}
      />,
      status as 200,
    );

  app.get('/apps/:id/edit', (c) => {
    const a = p.ownApp(c, c.req.param('id'));
    const env = envOf(c, a);
    return editForm(c, a, env.environment, valuesOf(env, a));
  });

  app.post('/apps/:id/edit', async (c) => {
    const a = p.ownApp(c, c.req.param('id'));
    const env = envOf(c, a);
    const f = await readForm(c, appForm);
    const result = await attempt(
      () =>
        updateApplication(ctx.db, ctx.clock, a.applicationId, {
          name: f.name,
          environment: env.environment,
          ...settingsOf(f),
          justification: f.justification,
          fullNumberJustification: f.full_number_justification,
          actor: actor(c),
        }),
      fieldOf,
      'name',
    );
    if (!result.ok) return editForm(c, a, env.environment, typedValues(f, a.type), result.errors, 400);
    const reviewId = result.value.pendingReviewId;
    if (reviewId)
      securityEvent(c.var.ctx, 'review.requested', {
        applicationId: a.applicationId,
        reviewId,
        actor: actor(c),
      });
    const outcome = reviewId ? 'pending' : 'updated';
    return c.redirect(`${base}/apps/${a.applicationId}?env=${env.environment}&${outcome}=1`, 303);
  });

  app.get('/apps/:id/delete', (c) => {
    const a = p.ownApp(c, c.req.param('id'));
    const props = p.props(c, 'apps');
    return c.html(
      <ConfirmPage
        {...props}
        title={props.m.deleteAppTitle}
        warning={props.m.deleteAppWarning(a.name)}
        action={`${base}/apps/${a.applicationId}/delete`}
        confirm={props.m.deleteConfirm}
        cancelHref={appHref(a.applicationId)}
        danger
      />,
    );
  });

  app.post('/apps/:id/delete', (c) => {
    const a = p.ownApp(c, c.req.param('id'));
    deleteApplication(ctx.db, ctx.clock, a.applicationId, { actor: actor(c) });
    return c.redirect(`${base}/apps?deleted=1`, 303);
  });

  app.get('/apps/:id/secret/rotate', (c) => {
    const a = p.ownApp(c, c.req.param('id'));
    const env = envOf(c, a);
    if (a.type === 'public') throw new NotFoundError();
    const props = p.props(c, 'apps');
    return c.html(
      <ConfirmPage
        {...props}
        title={props.m.rotateSecretTitle}
        warning={props.m.rotateSecretWarning(props.m.envNames[env.environment]!)}
        action={`${base}/apps/${a.applicationId}/secret/rotate?env=${env.environment}`}
        confirm={props.m.rotateConfirm}
        cancelHref={appHref(a.applicationId, env.environment)}
        danger
      />,
    );
  });

  app.post('/apps/:id/secret/rotate', async (c) => {
    const a = p.ownApp(c, c.req.param('id'));
    const env = envOf(c, a);
    if (a.type === 'public') throw new NotFoundError();
    const issued = await rotateClientSecret(ctx.db, ctx.clock, a.applicationId, env.environment, {
      actor: actor(c),
    });
    return showSecret(c, a.applicationId, env.environment, {
      shown: 'rotated',
      clientSecret: issued.clientSecret,
    });
  });

  app.post('/apps/:id/production-secret', async (c) => {
    const a = p.ownApp(c, c.req.param('id'));
    const secret = await revealProductionSecret(ctx, a.applicationId, { actor: actor(c) });
    if (secret)
      return showSecret(c, a.applicationId, 'production', { shown: 'revealed', clientSecret: secret });
    const props = p.props(c, 'apps');
    return c.html(
      <GonePage
        {...props}
        title={props.m.revealGoneTitle}
        message={props.m.revealGone}
        backHref={appHref(a.applicationId, 'production')}
      />,
      410,
    );
  });

  const reviewPage = (
    c: PC,
    a: ApplicationView,
    values: { justification: string; scopes: string[]; fullNumberJustification: string },
    errors?: FieldErrors,
    status = 200,
  ) =>
    c.html(
      <ReviewPage
        {...p.props(c, 'apps')}
        app={a}
        action={`${base}/apps/${a.applicationId}/review`}
        values={values}
        errors={errors}
      />,
      status as 200,
    );

  app.get('/apps/:id/review', (c) => {
    const a = p.ownApp(c, c.req.param('id'));
    requireVerified(p.me(c));
    const sandbox = a.environments.find((e) => e.environment === 'sandbox')!;
    return reviewPage(c, a, { justification: '', scopes: sandbox.scopes, fullNumberJustification: '' });
  });

  app.post('/apps/:id/review', async (c) => {
    const a = p.ownApp(c, c.req.param('id'));
    requireVerified(p.me(c));
    const f = await readForm(c, reviewForm);
    const result = await attempt(
      () =>
        requestProductionReview(ctx.db, ctx.clock, a.applicationId, {
          justification: f.justification,
          scopes: f.scopes,
          fullNumberJustification: f.full_number_justification,
          actor: actor(c),
        }),
      fieldOf,
      'justification',
    );
    if (!result.ok)
      return reviewPage(
        c,
        a,
        {
          justification: f.justification,
          scopes: f.scopes,
          fullNumberJustification: f.full_number_justification,
        },
        result.errors,
        400,
      );
    const reviewId = result.value.reviewId;
    securityEvent(c.var.ctx, 'review.requested', {
      applicationId: a.applicationId,
      reviewId,
      actor: actor(c),
    });
    return c.redirect(`${base}/apps/${a.applicationId}?review=1`, 303);
  });

  return app;
}
