/** @jsxImportSource hono/jsx */
import { type Context, Hono } from 'hono';
import { z } from 'zod';
import { securityEvent } from '../../audit/security-events.ts';
import { surfacePath } from '../../config/surfaces.ts';
import { consentHolder, heldBy } from '../../consent/holder.ts';
import { disconnectApplication, revokeConsent } from '../../consent/lifecycle.ts';
import type { AppContext } from '../../context.ts';
import { ApiError, NotFoundError } from '../../errors.ts';
import { pageBodyLimit } from '../../http/body-limit.ts';
import type { AppEnv } from '../../http/env.ts';
import { pageRateLimit } from '../../http/rate-limit.ts';
import { type SecurityHeadersEnv, securityHeaders } from '../../http/security-headers.ts';
import { createPersonStore, type FlowPerson } from '../../persons/person.store.ts';
import { unix } from '../../platform/clock.ts';
import { readForm } from '../../web/form.ts';
import {
  csrfProtection,
  csrfToken,
  type SessionEnv,
  sessionMiddleware,
  signInSession,
  signOutSession,
} from '../../web/session.middleware.ts';
import { errorResponse, identityErrorResponse } from '../error-response.tsx';
import { knownPersonBrowsers } from '../known-browsers.ts';
import { messagesFor } from '../messages/index.ts';
import { passwordSignIn } from '../password-signin.ts';
import { PERSONAS, personaByKey } from '../personas.ts';
import { AccountPage } from './account.page.tsx';
import { accountOverview, setDocumentSharing } from './account.ts';
import { AccountSigninPage } from './account-signin.page.tsx';
import { accountMessagesFor } from './messages.ts';

type Env = AppEnv & SessionEnv & SecurityHeadersEnv;
type C = Context<Env>;

const signinForm = z.object({ email: z.string().max(320), password: z.string().max(1024) });
const personaForm = z.object({ persona: z.string().max(64) });
const sharingForm = z.object({ share: z.enum(['on', 'off']) });
const NOTICES = ['revoked', 'disconnected', 'sharing'] as const;

/**
 * The person's account page in the identity experience, at `<identity_url>/account`: sign-in
 * (email and password; personas too when sandbox sign-in is on), connected applications with the
 * purpose and scopes of each consent, Revoke and Disconnect, and a sharing switch per document. Every
 * change is a CSRF-checked POST answered with a 303 back to the page.
 */
export function accountRouter(ctx: AppContext, cookieName: string) {
  const app = new Hono<Env>();
  const base = `${surfacePath(ctx.config.server.identity_url)}/account`;
  const browsers = knownPersonBrowsers(ctx);
  app.use('*', securityHeaders());
  app.use('*', pageRateLimit(ctx));
  app.use('*', pageBodyLimit());
  app.use('*', sessionMiddleware(ctx, { kind: 'identity', cookieName }));
  app.use('*', csrfProtection([ctx.config.server.identity_url]));

  const props = (c: C) => ({
    m: messagesFor(),
    a: accountMessagesFor(),
    nonce: c.get('cspNonce'),
    csrf: csrfToken(c),
    display: 'page' as const,
    sandbox: false,
    base,
  });

  /** The signed-in, active person of this session, if any. */
  const signedIn = (c: C): FlowPerson | undefined => {
    const id = c.get('session').subjectId;
    if (!id) return undefined;
    const person = createPersonStore(ctx.db).flowPerson(id);
    return person?.status === 'active' ? person : undefined;
  };
  const requirePerson = (c: C): FlowPerson => {
    const p = signedIn(c);
    // A form posted after the session ended: back to the sign-in form, nothing changed.
    if (!p) throw new SignedOut();
    return p;
  };
  /** Whose consents the page shows and ends: a persona's only from this browser session. */
  const holderOf = (c: C, person: FlowPerson) => consentHolder(person, c.get('session').idHash);

  const back = (c: C, notice?: (typeof NOTICES)[number]) =>
    c.redirect(notice ? `${base}?done=${notice}` : base, 303);

  const renderSignin = (c: C, extra: { error?: string; email?: string } = {}, status = 200) =>
    c.html(
      <AccountSigninPage {...props(c)} {...extra} personas={ctx.config.identity.sandbox ? PERSONAS : []} />,
      status as 200,
    );

  app.get('/', (c) => {
    const person = signedIn(c);
    if (!person) return renderSignin(c);
    const done = c.req.query('done');
    const notice = (NOTICES as readonly string[]).includes(done ?? '')
      ? accountMessagesFor().notices[done!]
      : undefined;
    return c.html(
      <AccountPage
        {...props(c)}
        sandbox={person.environment === 'sandbox'}
        personName={person.name ?? ''}
        overview={accountOverview(ctx, holderOf(c, person))}
        notice={notice}
      />,
    );
  });

  app.post('/signin', async (c) => {
    const f = await readForm(c, signinForm);
    const m = messagesFor();
    const result = await passwordSignIn(c.var.ctx, {
      email: f.email,
      password: f.password,
      ip: c.get('clientIp'),
      browser: browsers.of(c),
    });
    if (!result.ok) {
      const throttled = result.reason === 'throttled';
      return renderSignin(
        c,
        { error: throttled ? m.signinThrottled : m.signinFailed, email: f.email },
        throttled ? 429 : 401,
      );
    }
    const subject = { subjectId: result.person.id, authTime: unix(ctx.clock), amr: ['pwd'] };
    await signInSession(c, ctx, subject, result.unchanged);
    return back(c);
  });

  app.post('/signin/persona', async (c) => {
    if (!ctx.config.identity.sandbox)
      throw new ApiError('SANDBOX_DISABLED', messagesFor().errorSandboxDisabled, 403);
    const persona = personaByKey((await readForm(c, personaForm)).persona);
    if (!persona) throw new ApiError('INVALID_REQUEST', 'Unknown persona.', 400);
    await signInSession(c, ctx, { subjectId: persona.personId, authTime: unix(ctx.clock), amr: ['sandbox'] });
    securityEvent(c.var.ctx, 'signin.succeeded', {
      surface: 'identity',
      method: 'sandbox',
      personId: persona.personId,
      ip: c.get('clientIp'),
    });
    return back(c);
  });

  app.post('/signout', (c) => {
    signOutSession(c, ctx);
    return back(c);
  });

  app.post('/consents/:id/revoke', async (c) => {
    const person = requirePerson(c);
    await revokeConsent(c.var.ctx, c.req.param('id'), 'revoked_by_person', {
      within: heldBy(holderOf(c, person)),
      actor: `person:${person.id}`,
    });
    return back(c, 'revoked');
  });

  app.post('/applications/:id/disconnect', async (c) => {
    const person = requirePerson(c);
    const ended = await disconnectApplication(c.var.ctx, holderOf(c, person), c.req.param('id'), {
      actor: `person:${person.id}`,
    });
    if (ended.length === 0) throw new NotFoundError('no connection to this application');
    return back(c, 'disconnected');
  });

  app.post('/documents/:id/sharing', async (c) => {
    const person = requirePerson(c);
    const f = await readForm(c, sharingForm);
    setDocumentSharing(ctx, holderOf(c, person), c.req.param('id'), f.share === 'on');
    return back(c, 'sharing');
  });

  app.onError((err, c) => {
    if (err instanceof SignedOut) return c.redirect(base, 303);
    if (err instanceof NotFoundError) return errorResponse(c, 404, accountMessagesFor().notFound);
    return identityErrorResponse(c, err);
  });
  return app;
}

class SignedOut extends Error {}
