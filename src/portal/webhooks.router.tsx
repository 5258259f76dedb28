/** @jsxImportSource hono/jsx */
import { Hono } from 'hono';
import { z } from 'zod';
import { ApiError, NotFoundError, ValidationError } from '../errors.ts';
import { many, readForm } from '../web/form.ts';
import { assertSessionStands } from '../web/session.middleware.ts';
import type { DeveloperPrincipal } from '../webhooks/access.ts';
import { deliveryHistory, redeliverEvent } from '../webhooks/deliveries.ts';
import {
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  listEndpoints,
  rotateSecret,
  sendTestEvent,
  updateEndpoint,
} from '../webhooks/endpoints.ts';
import { attempt, type Env, type PC, type Portal, type PortalEnv } from './env.ts';
import { AlreadyShownPage } from './pages/already-shown.page.tsx';
import { ConfirmPage } from './pages/confirm.page.tsx';
import type { FieldErrors } from './pages/layout.tsx';
import { EndpointFormPage, type EndpointFormValues } from './pages/webhook-form.page.tsx';
import { type HistoryFilters, WebhookHistoryPage } from './pages/webhook-history.page.tsx';
import { RotateWebhookPage } from './pages/webhook-rotate.page.tsx';
import { WebhookSecretPage } from './pages/webhook-secret.page.tsx';
import { EndpointsPage } from './pages/webhooks.page.tsx';

const endpointForm = z.object({
  url: z.string().max(10_000).default(''),
  events: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .transform(many),
  description: z.string().max(10_000).default(''),
  enabled: z.string().optional(),
});
const rotateForm = z.object({
  overlap: z
    .string()
    .regex(/^\d{1,7}$/)
    .transform(Number),
});
const redeliverForm = z.object({ endpointId: z.string().max(100) });

/** A signing secret just issued, kept for the page that shows it once. */
interface SecretResult {
  shown: 'created' | 'rotated';
  secret: string;
  previousExpires?: string;
}

const fieldOf = (path: string) => (['url', 'events', 'description'].includes(path) ? path : '');

/**
 * Webhook endpoints of one application environment, through the same domain functions as the
 * `/v1/developer/...` API: the portal acts as the signed-in developer in the environment of the page.
 */
export function webhooksRoutes(p: Portal) {
  const { ctx, base } = p;
  const app = new Hono<PortalEnv>();
  const root = '/apps/:id/:env{sandbox|production}/webhooks';

  const scope = (c: PC) => {
    const a = p.ownApp(c, c.req.param('id') ?? '');
    const environment = c.req.param('env') as Env;
    if (!a.environments.some((e) => e.environment === environment)) throw new NotFoundError();
    const principal: DeveloperPrincipal = {
      developerId: p.me(c).developerId,
      environment,
      assertActing: () => assertSessionStands(c),
    };
    const hb = `${base}/apps/${a.applicationId}/${environment}/webhooks`;
    const props = { ...p.props(c, 'apps'), app: a, environment };
    return { a, environment, principal, hb, props };
  };

  // Forms that issue a secret redirect to its page, which shows it once (POST-redirect-GET).
  const showSecret = async (c: PC, hb: string, endpointId: string, result: SecretResult) => {
    await p.keep(c, `webhook-secret:${endpointId}`, result);
    return c.redirect(`${hb}/${endpointId}/secret`, 303);
  };

  const listPage = (c: PC, extra: { notice?: string; error?: string } = {}, status = 200) => {
    const s = scope(c);
    return c.html(
      <EndpointsPage
        {...s.props}
        endpoints={listEndpoints(ctx, s.principal, s.a.applicationId)}
        {...extra}
      />,
      status as 200,
    );
  };

  app.get(root, (c) => {
    const m = p.props(c).m;
    const q = c.req.query();
    const notice = q.tested
      ? m.testSent(q.tested)
      : q.deleted
        ? m.endpointDeleted
        : q.updated
          ? m.endpointUpdated
          : undefined;
    return listPage(c, { notice });
  });

  const formPage = (
    c: PC,
    mode: 'create' | 'edit',
    action: string,
    values: EndpointFormValues,
    extra: { errors?: FieldErrors; general?: string } = {},
    status = 200,
  ) => {
    const s = scope(c);
    const m = s.props.m;
    const hint =
      s.environment === 'sandbox' && ctx.config.webhooks.allow_localhost_in_sandbox
        ? m.endpointUrlHintLocal
        : m.endpointUrlHint;
    return c.html(
      <EndpointFormPage {...s.props} mode={mode} action={action} values={values} urlHint={hint} {...extra} />,
      status as 200,
    );
  };

  app.get(`${root}/new`, (c) =>
    formPage(c, 'create', scope(c).hb, { url: '', events: ['webhook.test'], description: '', enabled: true }),
  );

  app.post(root, async (c) => {
    const s = scope(c);
    const f = await readForm(c, endpointForm);
    const values = { url: f.url, events: f.events, description: f.description, enabled: true };
    let result: Awaited<ReturnType<typeof attempt<Awaited<ReturnType<typeof createEndpoint>>>>>;
    try {
      result = await attempt(
        () => createEndpoint(ctx, s.principal, s.a.applicationId, values),
        fieldOf,
        'url',
      );
    } catch (err) {
      if (err instanceof ApiError && err.status === 409)
        return formPage(c, 'create', s.hb, values, { general: err.message }, 409);
      throw err;
    }
    if (!result.ok) return formPage(c, 'create', s.hb, values, { errors: result.errors }, 400);
    return showSecret(c, s.hb, result.value.id, { shown: 'created', secret: result.value.secret });
  });

  app.get(`${root}/:eid/secret`, async (c) => {
    const s = scope(c);
    const e = endpointOf(c, s);
    const m = s.props.m;
    const result = await p.take<SecretResult>(c, `webhook-secret:${e.id}`);
    if (!result) return c.html(<AlreadyShownPage {...s.props} backHref={s.hb} />, 410);
    return c.html(
      <WebhookSecretPage
        {...s.props}
        title={result.shown === 'created' ? m.endpointCreatedTitle : m.webhookSecretRotatedTitle}
        secret={result.secret}
        endpointUrl={e.url}
        previousExpires={result.previousExpires}
      />,
    );
  });

  app.get(`${root}/history`, (c) => {
    const s = scope(c);
    const q = c.req.query();
    const filters: HistoryFilters = {
      endpointId: q.endpointId || undefined,
      eventType: q.eventType || undefined,
      status: q.status || undefined,
    };
    let errors: FieldErrors | undefined;
    let history: ReturnType<typeof deliveryHistory>;
    try {
      history = deliveryHistory(ctx, s.principal, s.a.applicationId, {
        ...filters,
        cursor: q.cursor || undefined,
        limit: 50,
      });
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      const f = err.fields[0];
      errors = {
        [f?.path === 'cursor' ? 'endpointId' : (f?.path ?? 'status')]: f
          ? `${f.path} ${f.message}`
          : err.message,
      };
      history = { deliveries: [], nextCursor: null };
    }
    const next = history.nextCursor
      ? `${s.hb}/history?${new URLSearchParams({
          ...Object.fromEntries(Object.entries(filters).filter(([, v]) => v)),
          cursor: history.nextCursor,
        })}`
      : undefined;
    const m = s.props.m;
    return c.html(
      <WebhookHistoryPage
        {...s.props}
        history={history}
        endpoints={listEndpoints(ctx, s.principal, s.a.applicationId)}
        filters={filters}
        errors={errors}
        nextHref={next}
        notice={q.redelivered ? m.redelivered(q.redelivered) : undefined}
      />,
      errors ? 400 : 200,
    );
  });

  app.post(`${root}/events/:eventId/redeliver`, async (c) => {
    const s = scope(c);
    const f = await readForm(c, redeliverForm);
    const r = redeliverEvent(ctx, s.principal, s.a.applicationId, c.req.param('eventId'), {
      endpointId: f.endpointId,
    });
    return c.redirect(`${s.hb}/history?redelivered=${encodeURIComponent(r.eventId)}`, 303);
  });

  const endpointOf = (c: PC, s: ReturnType<typeof scope>) =>
    getEndpoint(ctx, s.principal, s.a.applicationId, c.req.param('eid') ?? '');

  app.get(`${root}/:eid/edit`, (c) => {
    const s = scope(c);
    const e = endpointOf(c, s);
    return formPage(c, 'edit', `${s.hb}/${e.id}/edit`, {
      url: e.url,
      events: e.events,
      description: e.description,
      enabled: e.enabled,
    });
  });

  app.post(`${root}/:eid/edit`, async (c) => {
    const s = scope(c);
    const e = endpointOf(c, s);
    const f = await readForm(c, endpointForm);
    const values = { url: f.url, events: f.events, description: f.description, enabled: f.enabled === '1' };
    const result = await attempt(
      () => updateEndpoint(ctx, s.principal, s.a.applicationId, e.id, values),
      fieldOf,
      'url',
    );
    if (!result.ok)
      return formPage(c, 'edit', `${s.hb}/${e.id}/edit`, values, { errors: result.errors }, 400);
    return c.redirect(`${s.hb}?updated=1`, 303);
  });

  for (const [action, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const)
    app.post(`${root}/:eid/${action}`, async (c) => {
      const s = scope(c);
      const e = endpointOf(c, s);
      await updateEndpoint(ctx, s.principal, s.a.applicationId, e.id, { enabled });
      return c.redirect(`${s.hb}?updated=1`, 303);
    });

  app.post(`${root}/:eid/test`, (c) => {
    const s = scope(c);
    const e = endpointOf(c, s);
    try {
      const { eventId } = sendTestEvent(ctx, s.principal, s.a.applicationId, e.id);
      return c.redirect(`${s.hb}?tested=${encodeURIComponent(eventId)}`, 303);
    } catch (err) {
      if (err instanceof ApiError && err.status === 409) return listPage(c, { error: err.message }, 409);
      throw err;
    }
  });

  app.get(`${root}/:eid/rotate`, (c) => {
    const s = scope(c);
    return c.html(<RotateWebhookPage {...s.props} endpoint={endpointOf(c, s)} />);
  });

  app.post(`${root}/:eid/rotate`, async (c) => {
    const s = scope(c);
    const e = endpointOf(c, s);
    const f = await readForm(c, rotateForm);
    const r = await rotateSecret(ctx, s.principal, s.a.applicationId, e.id, {
      expireCurrentInSeconds: f.overlap,
    });
    return showSecret(c, s.hb, e.id, {
      shown: 'rotated',
      secret: r.secret,
      previousExpires: r.previousSecretExpiresAt,
    });
  });

  app.get(`${root}/:eid/delete`, (c) => {
    const s = scope(c);
    const e = endpointOf(c, s);
    const m = s.props.m;
    return c.html(
      <ConfirmPage
        {...s.props}
        title={m.deleteEndpointTitle}
        warning={m.deleteEndpointWarning(e.url)}
        action={`${s.hb}/${e.id}/delete`}
        confirm={m.deleteConfirm}
        cancelHref={s.hb}
        danger
      />,
    );
  });

  app.post(`${root}/:eid/delete`, (c) => {
    const s = scope(c);
    const e = endpointOf(c, s);
    deleteEndpoint(ctx, s.principal, s.a.applicationId, e.id);
    return c.redirect(`${s.hb}?deleted=1`, 303);
  });

  return app;
}
