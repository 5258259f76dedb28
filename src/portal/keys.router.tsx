/** @jsxImportSource hono/jsx */
import { Hono } from 'hono';
import { z } from 'zod';
import { securityEvent } from '../audit/security-events.ts';
import { createApiKey, listApiKeys, revokeApiKey } from '../developer/api-key.store.ts';
import { NotFoundError, ValidationError } from '../errors.ts';
import { readForm } from '../web/form.ts';
import { requireVerified } from './account.ts';
import type { PC, Portal, PortalEnv } from './env.ts';
import { AlreadyShownPage } from './pages/already-shown.page.tsx';
import { ConfirmPage } from './pages/confirm.page.tsx';
import { KeysPage } from './pages/keys.page.tsx';
import type { FieldErrors } from './pages/layout.tsx';

const MAX_LABEL = 100;
const keyForm = z.object({
  label: z.string().max(10_000).default(''),
  environment: z.enum(['sandbox', 'production']),
});

/** Developer API keys: create (shown once), list with last use, revoke. */
export function keysRoutes(p: Portal) {
  const { ctx, base } = p;
  const app = new Hono<PortalEnv>();

  const page = (
    c: PC,
    extra: {
      created?: { key: string };
      notice?: string;
      errors?: FieldErrors;
      label?: string;
    } = {},
    status = 200,
  ) =>
    c.html(
      <KeysPage {...p.props(c, 'keys')} keys={listApiKeys(ctx.db, p.me(c).developerId)} {...extra} />,
      status as 200,
    );

  /** One of the developer's own keys; another developer's is the same 404 as an unknown one. */
  const ownKey = (c: PC) => {
    const key = listApiKeys(ctx.db, p.me(c).developerId).find((k) => k.keyId === c.req.param('keyId'));
    if (!key) throw new NotFoundError();
    return key;
  };

  app.get('/keys', (c) => page(c, { notice: c.req.query('revoked') ? p.props(c).m.keyRevoked : undefined }));

  app.post('/keys', async (c) => {
    const f = await readForm(c, keyForm);
    const label = f.label.trim();
    if (label.length > MAX_LABEL)
      return page(c, { errors: { label: p.props(c).m.labelTooLong }, label }, 400);
    const dev = p.me(c);
    if (f.environment === 'production') requireVerified(dev);
    try {
      const created = await createApiKey(ctx.db, ctx.clock, dev.developerId, f.environment, {
        label,
        actor: `developer:${dev.developerId}`,
      });
      securityEvent(c.var.ctx, 'developer.key_created', {
        developerId: dev.developerId,
        keyId: created.keyId,
        environment: f.environment,
      });
      // Shown once by the page it redirects to (POST-redirect-GET): a reload creates no second key.
      await p.keep(c, `api-key:${created.keyId}`, { key: created.key });
      return c.redirect(`${base}/keys/${created.keyId}/created`, 303);
    } catch (e) {
      if (!(e instanceof ValidationError)) throw e;
      return page(c, { errors: { environment: p.props(c).m.tooManyKeys }, label }, 400);
    }
  });

  app.get('/keys/:keyId/created', async (c) => {
    const key = ownKey(c);
    const created = await p.take<{ key: string }>(c, `api-key:${key.keyId}`);
    if (created) return page(c, { created });
    return c.html(<AlreadyShownPage {...p.props(c, 'keys')} backHref={`${base}/keys`} />, 410);
  });

  app.get('/keys/:keyId/revoke', (c) => {
    const key = ownKey(c);
    const props = p.props(c, 'keys');
    return c.html(
      <ConfirmPage
        {...props}
        title={props.m.revokeKeyTitle}
        warning={`${key.label || key.keyId}: ${props.m.revokeKeyWarning}`}
        action={`${base}/keys/${key.keyId}/revoke`}
        confirm={props.m.revokeConfirm}
        cancelHref={`${base}/keys`}
        danger
      />,
    );
  });

  app.post('/keys/:keyId/revoke', (c) => {
    const key = ownKey(c);
    revokeApiKey(ctx.db, ctx.clock, key.keyId, { actor: `developer:${p.me(c).developerId}` });
    return c.redirect(`${base}/keys?revoked=1`, 303);
  });

  return app;
}
