/** @jsxImportSource hono/jsx */
import { Hono } from 'hono';
import { revokeSandboxConsent, sandboxConsentsOf } from '../consent/lifecycle.ts';
import { NotFoundError } from '../errors.ts';
import type { PC, Portal, PortalEnv } from './env.ts';
import { SandboxConsentsPage } from './pages/consents.page.tsx';

/**
 * The sandbox consents of one of the developer's applications: the personas are shared by every
 * developer, so this (not the persona's account page) is where a developer sees and ends them all.
 */
export function consentsRoutes(p: Portal) {
  const { ctx, base } = p;
  const app = new Hono<PortalEnv>();
  const root = '/apps/:id/sandbox/consents';

  const ownSandboxApp = (c: PC) => {
    const a = p.ownApp(c, c.req.param('id') ?? '');
    if (!a.environments.some((e) => e.environment === 'sandbox')) throw new NotFoundError();
    return a;
  };

  app.get(root, (c) => {
    const a = ownSandboxApp(c);
    const props = p.props(c, 'apps');
    return c.html(
      <SandboxConsentsPage
        {...props}
        app={a}
        consents={sandboxConsentsOf(ctx, a.applicationId)}
        notice={c.req.query('revoked') ? props.m.consentRevoked : undefined}
      />,
    );
  });

  app.post(`${root}/:consentId/revoke`, async (c) => {
    const a = ownSandboxApp(c);
    await revokeSandboxConsent(c.var.ctx, a.applicationId, c.req.param('consentId'), {
      actor: `developer:${p.me(c).developerId}`,
    });
    return c.redirect(`${base}/apps/${a.applicationId}/sandbox/consents?revoked=1`, 303);
  });

  return app;
}
