/** @jsxImportSource hono/jsx */
import { type Context, Hono } from 'hono';
import { getCookie } from 'hono/cookie';
import { z } from 'zod';
import { securityEvent } from '../../audit/security-events.ts';
import { holdsConsentTo } from '../../consent/consent.store.ts';
import { consentHolder } from '../../consent/holder.ts';
import type { AppContext } from '../../context.ts';
import { ApiError } from '../../errors.ts';
import { BODY_LIMITS, pageBodyLimit } from '../../http/body-limit.ts';
import type { AppEnv } from '../../http/env.ts';
import { pageRateLimit } from '../../http/rate-limit.ts';
import { formActionSource, type SecurityHeadersEnv, securityHeaders } from '../../http/security-headers.ts';
import { subjectFor } from '../../keys/pairwise.ts';
import { createPersonStore } from '../../persons/person.store.ts';
import { readForm } from '../../web/form.ts';
import {
  csrfProtection,
  csrfToken,
  fromOwnPage,
  type SessionEnv,
  sessionMiddleware,
  signOutSession,
} from '../../web/session.middleware.ts';
import { identityErrorResponse } from '../error-response.tsx';
import { messagesFor } from '../messages/index.ts';
import { LogoutConfirmPage } from './logout-confirm.page.tsx';
import { LogoutRepostPage } from './logout-repost.page.tsx';
import { checkLogoutRequest, type LogoutParams, type LogoutRequest, logoutParams } from './logout-request.ts';
import { SignedOutPage } from './signed-out.page.tsx';

type Env = AppEnv & SessionEnv & SecurityHeadersEnv;
type C = Context<Env>;

/** Longer queries are not sent through a redirect: proxies and listeners refuse long request lines. */
const MAX_REDIRECT_QUERY = 8 * 1024;

/** The form as the re-post page sends it again: marked, so that it is never answered with the page. */
const repostedParams = logoutParams.extend({ reposted: z.literal('1').optional() });

const queryOf = (params: LogoutParams) =>
  new URLSearchParams(
    Object.entries(params).filter((e): e is [string, string] => typeof e[1] === 'string'),
  ).toString();

/**
 * RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0), the `end_session_endpoint`, at
 * `<identity_url>/logout`: it ends the identity session, whose cookie only the identity host receives.
 * A valid `id_token_hint` for the signed-in person signs out at once; anything less asks first.
 */
export function logoutRouter(ctx: AppContext, cookieName: string, base: string) {
  const app = new Hono<Env>();
  const session = sessionMiddleware(ctx, { kind: 'identity', cookieName });
  app.use('*', securityHeaders());
  app.use('*', pageRateLimit(ctx));
  app.use(
    '*',
    pageBodyLimit(() => BODY_LIMITS.hinted),
  );

  // A page answered without a session (the cross-site re-post) has no CSRF token to give.
  const props = (c: C, req?: LogoutRequest, csrf = csrfToken(c)) => ({
    m: messagesFor(req?.carried.ui_locales),
    nonce: c.get('cspNonce'),
    csrf,
    display: 'page' as const,
    sandbox: req?.client?.environment === 'sandbox',
  });

  /** The signed-in person's session ends: row and cookie gone; consents stay. */
  const endSession = (c: C, req: LogoutRequest, how: 'id_token_hint' | 'confirmed') => {
    const personId = c.get('session').subjectId;
    if (!personId) return;
    signOutSession(c, ctx);
    securityEvent(c.var.ctx, 'signout', {
      surface: 'identity',
      personId,
      ...(req.client ? { clientId: req.client.clientId, applicationId: req.client.applicationId } : {}),
      reason: how,
    });
  };

  /** The request a re-posted form was checked as, for the session's step that answers it. */
  const reposted = new WeakMap<Request, LogoutRequest>();

  // Chrome applies form-action to where a form's answer redirects.
  const allowFormActionTo = (c: C, req: LogoutRequest) => {
    const source = req.returnTo && formActionSource(req.returnTo);
    if (source) c.get('cspFormAction').push(source);
  };

  // The signed-out page has no form, so no CSRF token (and it may be answered without a session).
  const finish = (c: C, req: LogoutRequest) =>
    req.returnTo ? c.redirect(req.returnTo, 303) : c.html(<SignedOutPage {...props(c, req, '')} />);

  /**
   * Whether the hint names this session's person at its client. A sandbox persona is shared by every
   * developer, any of whom can hold an ID token for it: its hint counts only from an application this
   * session itself signed in to.
   */
  const hintNamesSession = async (c: C, req: LogoutRequest, personId: string) => {
    if (!req.client || req.hintSubject !== (await subjectFor(ctx, req.client.applicationId, personId)))
      return false;
    const person = createPersonStore(ctx.db).flowPerson(personId);
    if (person?.environment !== 'sandbox') return true;
    const holder = consentHolder(person, c.get('session').idHash);
    return holdsConsentTo(ctx.db, holder, req.client.environmentId);
  };

  /** The GET's answer, and the re-posted form's: at once with a hint naming them, else asked. */
  const answer = async (c: C, req: LogoutRequest) => {
    const personId = c.get('session').subjectId;
    if (!personId) return finish(c, req);
    if (await hintNamesSession(c, req, personId)) {
      endSession(c, req, 'id_token_hint');
      return finish(c, req);
    }
    allowFormActionTo(c, req);
    return c.html(
      <LogoutConfirmPage
        {...props(c, req)}
        action={`${base}/logout/confirm`}
        accountHref={`${base}/account`}
        applicationName={req.client?.name}
        personName={createPersonStore(ctx.db).flowPerson(personId)?.name ?? ''}
        carried={req.carried}
      />,
    );
  };

  // §2: the RP may POST its form. Posted across sites, it arrives without the SameSite=Lax session
  // cookie, so it is answered with the same request as a GET, which a top-level navigation sends it
  // with; or, when that URL would be too long (a hint carrying the photo), with a page that posts the
  // form again from Verity's own origin.
  app.post('/', async (c, next) => {
    const { reposted: again, ...params } = await readForm(c, repostedParams);
    const query = queryOf(params);
    if (query.length <= MAX_REDIRECT_QUERY) return c.redirect(`${base}/logout?${query}`, 303);
    const req = await checkLogoutRequest(ctx, params);
    if (!fromOwnPage(c, ctx.config.server.identity_url)) {
      // A browser that does not say where a form came from would get the page again and again.
      if (again)
        throw new ApiError('INVALID_REQUEST', 'This browser does not say where its form came from.', 400);
      allowFormActionTo(c, req);
      return c.html(<LogoutRepostPage {...props(c, req, '')} action={`${base}/logout`} params={params} />);
    }
    // Nobody is signed in in this browser (the session middleware would refuse a POST without a cookie).
    if (!getCookie(c, cookieName)) return finish(c, req);
    reposted.set(c.req.raw, req);
    return next();
  });
  app.post('/', session, (c) => answer(c, reposted.get(c.req.raw)!));

  app.get('/', session, async (c) => {
    const parsed = logoutParams.safeParse(c.req.query());
    if (!parsed.success) throw new ApiError('INVALID_REQUEST', 'The logout request is malformed.', 400);
    return answer(c, await checkLogoutRequest(ctx, parsed.data));
  });

  app.post('/confirm', session, csrfProtection([ctx.config.server.identity_url]), async (c) => {
    const req = await checkLogoutRequest(ctx, await readForm(c, logoutParams.omit({ id_token_hint: true })));
    endSession(c, req, 'confirmed');
    return finish(c, req);
  });

  app.onError((err, c) => identityErrorResponse(c, err));
  return app;
}
