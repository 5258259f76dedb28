/** @jsxImportSource hono/jsx */
import { type Context, Hono } from 'hono';
import { getCookie } from 'hono/cookie';
import { z } from 'zod';
import { securityEvent } from '../audit/security-events.ts';
import { surfaceMount } from '../config/surfaces.ts';
import type { AppContext } from '../context.ts';
import { sha256Hex } from '../crypto/tokens.ts';
import { ApiError, NotFoundError } from '../errors.ts';
import { BODY_LIMITS, pageBodyLimit } from '../http/body-limit.ts';
import type { AppEnv } from '../http/env.ts';
import { pageRateLimit } from '../http/rate-limit.ts';
import { formActionSource, type SecurityHeadersEnv, securityHeaders } from '../http/security-headers.ts';
import { type AuthorizationRequest, loadAuthorizationRequest } from '../oauth/authorization-result.ts';
import { findClient } from '../oauth/client.store.ts';
import { createPersonStore } from '../persons/person.store.ts';
import { unix } from '../platform/clock.ts';
import { readForm } from '../web/form.ts';
import {
  csrfProtection,
  csrfToken,
  type SessionEnv,
  sessionMiddleware,
  signInSession,
} from '../web/session.middleware.ts';
import { trimTrailingSlash } from '../web/trailing-slash.middleware.ts';
import { accountRouter } from './account/account.router.tsx';
import { errorResponse, identityErrorResponse } from './error-response.tsx';
import { CHALLENGE_FRAMES } from './face/challenge.ts';
import { configuredFaceProvider } from './face/configured.ts';
import { sandboxFaceProvider } from './face/sandbox.ts';
import {
  applyForcedOutcome,
  boundRequest,
  cancel,
  checkSandboxAllowed,
  decideConsent,
  FlowError,
  faceRetry,
  faceStep,
  faceUnavailable,
  type Next,
  personAtStep,
  resume,
  showFaceChallenge,
  signedIn,
  verifyFace,
} from './flow.ts';
import { knownPersonBrowsers } from './known-browsers.ts';
import { logoutRouter } from './logout/logout.router.tsx';
import { type Messages, messagesFor } from './messages/index.ts';
import { ConsentPage } from './pages/consent.page.tsx';
import { CameraFacePage } from './pages/face-camera.page.tsx';
import { SandboxFacePage } from './pages/face-sandbox.page.tsx';
import { FaceUnavailablePage } from './pages/face-unavailable.page.tsx';
import type { PageProps } from './pages/layout.tsx';
import { PasswordSigninPage } from './pages/password-signin.page.tsx';
import { PersonaPickerPage } from './pages/persona-picker.page.tsx';
import { passwordSignIn } from './password-signin.ts';
import { PERSONAS, personaByKey } from './personas.ts';

type Env = AppEnv & SessionEnv & SecurityHeadersEnv;
type C = Context<Env>;

export const IDENTITY_COOKIE = '__Host-verity_session';

/** Camera frames of at most this size each reach the face provider, one under each challenge colour. */
const MAX_FRAME_CHARS = 1_500_000;

const signinForm = z.object({ email: z.string().max(320), password: z.string().max(1024) });
const personaForm = z.object({
  persona: z.string(),
  outcome: z.enum(['none', 'deny', 'fail_liveness', 'fail_match']).default('none'),
});
const sandboxFaceForm = z.object({ outcome: z.enum(['pass', 'fail_liveness', 'fail_match']) });
const framesField = z
  .string()
  .max(CHALLENGE_FRAMES * MAX_FRAME_CHARS + 100)
  .transform((s, ctx) => {
    try {
      return JSON.parse(s) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'not JSON' });
      return z.NEVER;
    }
  })
  .pipe(
    z
      .array(
        z
          .string()
          .max(MAX_FRAME_CHARS)
          .regex(/^data:image\/(jpeg|png|webp);base64,[A-Za-z0-9+/=]+$/),
      )
      // None (the camera gave nothing) ends the request; otherwise one frame under each colour.
      .refine((frames) => frames.length === 0 || frames.length === CHALLENGE_FRAMES, {
        message: `expected ${CHALLENGE_FRAMES} frames`,
      }),
  );
// 16 random bytes, base64url (face/challenge.ts).
const challengeField = z.string().regex(/^[A-Za-z0-9_-]{22}$/);
const consentForm = z.object({ decision: z.enum(['allow', 'deny']) });

/** The hosted identity experience, mounted at the path of `[server] identity_url`. */
export function identityRouter(ctx: AppContext) {
  const app = new Hono<Env>();
  const { server } = ctx.config;
  const { path: base, ownHost } = surfaceMount(server, server.identity_url);
  const path = (id: string, step = '') => `${base}/authorize/${encodeURIComponent(id)}${step}`;
  const browsers = knownPersonBrowsers(ctx);

  /**
   * The face step's form carries camera frames, for a production request waiting for them in this
   * browser; every other form is small. Decided before any of the body is read.
   */
  const formLimit = async (c: C) => {
    if (c.req.method !== 'POST' || !c.req.path.endsWith('/face')) return BODY_LIMITS.pages;
    const req = loadAuthorizationRequest(ctx, c.req.path.split('/').at(-2) ?? '');
    const cookie = getCookie(c, IDENTITY_COOKIE);
    const waiting =
      req?.status === 'authenticated' &&
      req.environment === 'production' &&
      cookie !== undefined &&
      req.sessionIdHash === (await sha256Hex(cookie));
    return waiting ? BODY_LIMITS.cameraFrames : BODY_LIMITS.pages;
  };

  // Scoped to the flow's paths: at the root of the base host the identity surface is mounted at "/",
  // and these must not touch the API routes that share the app.
  const flow = '/authorize/*';
  app.use(flow, trimTrailingSlash());
  app.use('/account/*', trimTrailingSlash());
  // The surface's own address leads to the person's account page (at the base host's root, "/" is the API's).
  if (base || ownHost) {
    app.get('/', (c) => c.redirect(`${base}/account`, 303));
    app.get('/*', (c, next) => (c.req.path === `${base}/` ? c.redirect(`${base}/account`, 303) : next()));
  }
  app.use(flow, securityHeaders());
  app.use(flow, pageRateLimit(ctx));
  app.use(flow, pageBodyLimit(formLimit));
  app.use(flow, sessionMiddleware(ctx, { kind: 'identity', cookieName: IDENTITY_COOKIE }));
  app.use(flow, csrfProtection([ctx.config.server.identity_url]));

  const props = (c: C, req?: AuthorizationRequest): PageProps & { m: Messages } => ({
    m: messagesFor(req?.uiLocales),
    nonce: c.get('cspNonce'),
    csrf: csrfToken(c),
    display: req?.display ?? 'page',
    sandbox: req?.environment === 'sandbox',
    cancel: req && { action: path(req.id, '/cancel'), applicationName: req.applicationName },
  });

  /** Loads the request for this session and lets its pages' forms end at the client's callback. */
  const load = (c: C): AuthorizationRequest => {
    const req = boundRequest(ctx, c.req.param('id') ?? '', c.get('session'));
    checkSandboxAllowed(ctx, req);
    const source = formActionSource(req.redirectUri);
    if (source) c.get('cspFormAction').push(source);
    return req;
  };

  /** Every step answers with a 303: after a POST the browser fetches the next page with GET. */
  const go = (c: C, id: string, next: Next) => {
    switch (next.kind) {
      case 'callback':
        return c.redirect(next.url, 303);
      case 'signin':
        return c.redirect(path(id), 303);
      case 'face':
        return c.redirect(path(id, '/face'), 303);
      case 'consent':
        return c.redirect(path(id, '/consent'), 303);
    }
  };

  const renderSignin = (
    c: C,
    req: AuthorizationRequest,
    extra: { error?: string; email?: string } = {},
    status = 200,
  ) => {
    const p = {
      ...props(c, req),
      action: path(req.id, '/signin'),
      applicationName: req.applicationName,
      ...extra,
    };
    const page =
      req.environment === 'sandbox' ? (
        <PersonaPickerPage {...p} personas={PERSONAS} />
      ) : (
        <PasswordSigninPage {...p} email={extra.email ?? req.loginHint} />
      );
    return c.html(page, status as 200);
  };

  app.get('/authorize/:id', async (c) => {
    const req = load(c);
    const next = await resume(c.var.ctx, req, c.get('session'));
    return next.kind === 'signin' ? renderSignin(c, req) : go(c, req.id, next);
  });

  app.post('/authorize/:id/signin', async (c) => {
    const req = load(c);
    if (req.status !== 'pending') return go(c, req.id, await resume(c.var.ctx, req, c.get('session')));
    if (req.environment === 'sandbox') {
      const f = await readForm(c, personaForm);
      const persona = personaByKey(f.persona);
      if (!persona) throw new ApiError('INVALID_REQUEST', 'Unknown persona.', 400);
      const session = await signInSession(c, ctx, {
        subjectId: persona.personId,
        authTime: unix(ctx.clock),
        amr: ['sandbox'],
      });
      securityEvent(c.var.ctx, 'signin.succeeded', {
        surface: 'identity',
        method: 'sandbox',
        personId: persona.personId,
        ip: c.get('clientIp'),
      });
      const person = createPersonStore(ctx.db).flowPerson(persona.personId);
      if (!person) throw new Error('sandbox personas are not seeded');
      const forced = applyForcedOutcome(c.var.ctx, req, f.outcome);
      return go(c, req.id, forced ?? (await signedIn(c.var.ctx, req, person, session)));
    }
    const f = await readForm(c, signinForm);
    const m = messagesFor(req.uiLocales);
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
        req,
        { error: throttled ? m.signinThrottled : m.signinFailed, email: f.email },
        throttled ? 429 : 401,
      );
    }
    const session = await signInSession(
      c,
      ctx,
      { subjectId: result.person.id, authTime: unix(ctx.clock), amr: ['pwd'] },
      result.unchanged,
    );
    return go(c, req.id, await signedIn(c.var.ctx, req, result.person, session));
  });

  app.get('/authorize/:id/face', async (c) => {
    const req = load(c);
    if (!personAtStep(ctx, req, c.get('session'), 'authenticated'))
      return go(c, req.id, await resume(c.var.ctx, req, c.get('session')));
    const step = faceStep(c.var.ctx, req);
    if (step.kind !== 'face') return go(c, req.id, step);
    const p = { ...props(c, req), action: path(req.id, '/face'), retry: faceRetry(ctx, req) };
    if (req.environment === 'sandbox') return c.html(<SandboxFacePage {...p} />);
    if (!configuredFaceProvider(ctx.config))
      return c.html(<FaceUnavailablePage {...p} action={path(req.id, '/face/unavailable')} />);
    const challenge = showFaceChallenge(ctx, req);
    if (!challenge) return go(c, req.id, await resume(c.var.ctx, req, c.get('session')));
    return c.html(<CameraFacePage {...p} challenge={challenge} />);
  });

  app.post('/authorize/:id/face', async (c) => {
    const req = load(c);
    const person = personAtStep(ctx, req, c.get('session'), 'authenticated');
    if (!person) return go(c, req.id, await resume(c.var.ctx, req, c.get('session')));
    if (req.environment === 'sandbox') {
      const f = await readForm(c, sandboxFaceForm);
      const scripted = sandboxFaceProvider(f.outcome);
      return go(c, req.id, await verifyFace(c.var.ctx, req, person, scripted, { frames: [] }));
    }
    const provider = configuredFaceProvider(ctx.config);
    if (!provider) return go(c, req.id, faceUnavailable(c.var.ctx, req));
    const f = await readForm(c, z.object({ frames: framesField, challenge: challengeField }));
    return go(c, req.id, await verifyFace(c.var.ctx, req, person, provider, f));
  });

  app.post('/authorize/:id/face/unavailable', async (c) => {
    const req = load(c);
    if (
      !personAtStep(ctx, req, c.get('session'), 'authenticated') ||
      req.environment === 'sandbox' ||
      configuredFaceProvider(ctx.config)
    )
      return go(c, req.id, await resume(c.var.ctx, req, c.get('session')));
    return go(c, req.id, faceUnavailable(c.var.ctx, req));
  });

  app.get('/authorize/:id/consent', async (c) => {
    const req = load(c);
    const person = personAtStep(ctx, req, c.get('session'), 'face_passed');
    if (!person) return go(c, req.id, await resume(c.var.ctx, req, c.get('session')));
    const client = findClient(ctx, req.clientId);
    return c.html(
      <ConsentPage
        {...props(c, req)}
        action={path(req.id, '/consent')}
        applicationName={req.applicationName}
        redirectUri={req.redirectUri}
        policyUri={client?.policyUri ?? null}
        tosUri={client?.tosUri ?? null}
        purpose={req.purpose}
        scopes={req.scopes}
        personName={person.name ?? ''}
      />,
    );
  });

  app.post('/authorize/:id/consent', async (c) => {
    const req = load(c);
    const person = personAtStep(ctx, req, c.get('session'), 'face_passed');
    if (!person) return go(c, req.id, await resume(c.var.ctx, req, c.get('session')));
    const f = await readForm(c, consentForm);
    return go(c, req.id, await decideConsent(c.var.ctx, req, person, f.decision));
  });

  app.post('/authorize/:id/cancel', (c) => {
    const req = load(c);
    return go(c, req.id, cancel(c.var.ctx, req));
  });

  app.onError((err, c) => {
    const m = messagesFor();
    if (err instanceof FlowError) {
      const message =
        err.reason === 'other_session'
          ? m.errorOtherSession
          : err.reason === 'sandbox_disabled'
            ? m.errorSandboxDisabled
            : m.errorUnknownRequest;
      return errorResponse(c, err.status, message);
    }
    // approve/reject refuse a request that ended meanwhile (a double submit, another tab).
    if (err instanceof NotFoundError) return errorResponse(c, 404, m.errorUnknownRequest);
    return identityErrorResponse(c, err);
  });

  app.route('/account', accountRouter(ctx, IDENTITY_COOKIE));
  app.route('/logout', logoutRouter(ctx, IDENTITY_COOKIE, base));
  // Any other path of the surface's (paths.ts): its own 404 page, not the API's JSON.
  app.all('/*', securityHeaders(), (c) => errorResponse(c, 404, messagesFor().errorNoSuchPage));
  return app;
}
