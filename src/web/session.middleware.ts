import type { Context, MiddlewareHandler } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { AppContext } from '../context.ts';
import { randomToken, timingSafeEqual } from '../crypto/tokens.ts';
import { ApiError } from '../errors.ts';
import type { AppEnv } from '../http/env.ts';
import { unix } from '../platform/clock.ts';
import { formFields } from './form.ts';
import {
  anonymousCsrfValid,
  anonymousSession,
  createSessionStore,
  isSessionToken,
  type Session,
  type SessionKind,
  type SessionTimeouts,
} from './session.store.ts';

export interface SessionOptions {
  kind: SessionKind;
  /** Must start with `__Host-`: Secure, no Domain, Path=/ — the cookie cannot be planted by a sibling host. */
  cookieName: string;
  path?: '/';
  /** Defaults to `[identity] session_idle` / `session_absolute`. */
  timeouts?: SessionTimeouts;
  /** URLs whose origin may post forms; defaults to the surface's own (`identity_url` / `developer_url`). */
  origins?: string[];
}

export interface SessionEnv {
  Variables: {
    session: Session;
    sessionOptions: Required<SessionOptions>;
  };
}

type Env = AppEnv & SessionEnv;

export function sessionTimeouts(ctx: AppContext): SessionTimeouts {
  return {
    idle: Math.floor(ctx.config.identity.session_idle / 1000),
    absolute: Math.floor(ctx.config.identity.session_absolute / 1000),
  };
}

function writeCookie(
  c: Context,
  opts: Required<SessionOptions>,
  token: string,
  session: Session,
  now: number,
) {
  setCookie(c, opts.cookieName, token, {
    path: opts.path,
    secure: true,
    httpOnly: true,
    sameSite: 'Lax',
    // The browser forgets it no later than the server does.
    maxAge: Math.max(0, session.expiresAt - now),
  });
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Whether the browser says a request came from another site: Fetch Metadata other than
 * `same-origin`, or an `Origin` that is not one of ours. Browsers send `Origin: null` on our own forms
 * because the pages use `Referrer-Policy: no-referrer`, so `null` passes only when Fetch Metadata
 * (`Sec-Fetch-Site: same-origin`) vouches for it.
 */
function fromAnotherSite(c: Context, origins: Set<string>): boolean {
  const site = c.req.header('sec-fetch-site');
  const origin = c.req.header('origin');
  return (
    (site !== undefined && site !== 'same-origin') ||
    (origin !== undefined && (origin === 'null' ? site !== 'same-origin' : !origins.has(origin)))
  );
}

const originsOf = (urls: string[]) => new Set(urls.map((u) => new URL(u).origin));

/** Whether an unsafe request says it comes from a page of `url`'s origin (not merely that it may). */
export function fromOwnPage(c: Context, url: string): boolean {
  const site = c.req.header('sec-fetch-site');
  if (site !== undefined) return site === 'same-origin';
  return c.req.header('origin') === new URL(url).origin;
}

/** A session that exists only for this response: never stored, no cookie, a CSRF secret nobody holds. */
function unsavedSession(kind: SessionKind, now: number): Session {
  return {
    idHash: '',
    stored: false,
    kind,
    subjectId: null,
    csrfSecret: randomToken('', 32),
    authTime: null,
    amr: [],
    faceVerifiedAt: null,
    createdAt: now,
    lastSeenAt: now,
    expiresAt: now,
  };
}

const CROSS_SITE_MESSAGE = 'This form was sent from another site.';
const PASSWORD_CHANGED_MESSAGE = 'The password was changed while it was being checked. Sign in again.';
const EXPIRED_MESSAGE =
  'This form has expired or was not sent from this site. Go back to the application and start again.';

/**
 * Every page view gets a session: the stored one behind the cookie while it is within its idle and
 * absolute timeouts, otherwise an anonymous one named by the cookie (a fresh cookie if there is none),
 * which is not stored: a page view without a signed-in session writes nothing. A state-changing
 * request never gets a new session or a cookie: a cross-site form post arrives without the
 * SameSite=Lax cookie, and answering it with a fresh cookie would replace (sign out) the person's
 * real session. Such a request, or one the browser says came from another site, is refused here
 * before the session store is touched; the error page gets an unsaved session so it still renders. Generic over the surface: the identity
 * experience and the developer portal each pass their own kind and cookie, and their own origin is
 * the one accepted (`origins` overrides it).
 */
export function sessionMiddleware(ctx: AppContext, options: SessionOptions): MiddlewareHandler<Env> {
  const opts: Required<SessionOptions> = {
    path: '/',
    timeouts: options.timeouts ?? sessionTimeouts(ctx),
    origins: [
      options.kind === 'developer' ? ctx.config.server.developer_url : ctx.config.server.identity_url,
    ],
    ...options,
  };
  if (!opts.cookieName.startsWith('__Host-')) throw new Error('session cookies use the __Host- prefix');
  const origins = originsOf(opts.origins);
  const store = createSessionStore(ctx.db);
  return async function session(c, next) {
    const now = unix(ctx.clock);
    c.set('sessionOptions', opts);
    const unsafe = !SAFE_METHODS.has(c.req.method);
    if (unsafe && fromAnotherSite(c, origins)) {
      c.set('session', unsavedSession(opts.kind, now));
      throw new ApiError('CSRF_FAILED', CROSS_SITE_MESSAGE, 403);
    }
    const cookie = getCookie(c, opts.cookieName) ?? '';
    let session = await store.resume(opts.kind, cookie, now, opts.timeouts);
    if (!session) {
      if (!isSessionToken(cookie) && unsafe) {
        c.set('session', unsavedSession(opts.kind, now));
        throw new ApiError('CSRF_FAILED', EXPIRED_MESSAGE, 403);
      }
      const token = isSessionToken(cookie) ? cookie : randomToken('', 32);
      session = await anonymousSession(opts.kind, token, now, opts.timeouts);
      if (token !== cookie) writeCookie(c, opts, token, session, now);
    }
    c.set('session', session);
    await next();
  };
}

/**
 * Signs the subject into the current session (rotating its id and cookie) and returns the new session.
 * A password sign-in passes `unchanged`, asked as the session is stored: a password changed or reset
 * while it was being checked signs nobody in (401).
 */
export async function signInSession<E extends Env>(
  c: Context<E>,
  ctx: AppContext,
  subject: { subjectId: string; authTime: number; amr: string[] },
  unchanged?: () => boolean,
): Promise<Session> {
  const opts = c.get('sessionOptions');
  const now = unix(ctx.clock);
  const signedIn = await createSessionStore(ctx.db).signIn(c.get('session'), subject, now, unchanged);
  if (!signedIn) throw new ApiError('SIGNIN_FAILED', PASSWORD_CHANGED_MESSAGE, 401);
  const { token, session } = signedIn;
  writeCookie(c, opts, token, session, now);
  c.set('session', session);
  return session;
}

/** Ends the session: row removed, cookie cleared. */
export function signOutSession<E extends Env>(c: Context<E>, ctx: AppContext): void {
  const opts = c.get('sessionOptions');
  createSessionStore(ctx.db).delete(c.get('session').idHash);
  deleteCookie(c, opts.cookieName, { path: opts.path, secure: true });
}

/** The hidden-field value every form of the session carries. */
export const csrfToken = <E extends Env>(c: Context<E>): string => c.get('session').csrfSecret;

export const CSRF_FIELD = 'csrf_token';

/** A stored session's own secret; an anonymous session's token for its cookie; never an unsaved one's. */
async function csrfValid<E extends Env>(c: Context<E>, sent: string): Promise<boolean> {
  const session = c.get('session');
  // Asked again once the body is in: a session ended while it was sent (signed out, its password
  // reset) posts nothing.
  if (session.stored) return (await timingSafeEqual(sent, session.csrfSecret)) && sessionStands(c);
  if (!session.idHash) return false;
  const opts = c.get('sessionOptions');
  const token = getCookie(c, opts.cookieName) ?? '';
  const now = unix(c.get('ctx').clock);
  return anonymousCsrfValid(token, opts.kind, sent, now, opts.timeouts);
}

const sessionStands = <E extends Env>(c: Context<E>): boolean =>
  createSessionStore(c.get('ctx').db).exists(c.get('session').idHash);

/** Refuses the request as an expired form once its session has ended: for a write after a wait. */
export function assertSessionStands<E extends Env>(c: Context<E>): void {
  if (!sessionStands(c)) throw new ApiError('CSRF_FAILED', EXPIRED_MESSAGE, 403);
}

/**
 * Refuses every state-changing request that does not carry the session's CSRF token in the form, and
 * any the browser says came from elsewhere. Runs after `sessionMiddleware`.
 */
export function csrfProtection(allowedOrigins: string[]): MiddlewareHandler<Env> {
  const origins = originsOf(allowedOrigins);
  return async function csrf(c, next) {
    if (SAFE_METHODS.has(c.req.method)) return next();
    if (fromAnotherSite(c, origins)) throw new ApiError('CSRF_FAILED', CROSS_SITE_MESSAGE, 403);
    const type = c.req.header('content-type') ?? '';
    let sent = '';
    if (type.startsWith('application/x-www-form-urlencoded') || type.startsWith('multipart/form-data')) {
      const v = (await formFields(c))[CSRF_FIELD];
      sent = typeof v === 'string' ? v : '';
    }
    if (!sent || !(await csrfValid(c, sent))) throw new ApiError('CSRF_FAILED', EXPIRED_MESSAGE, 403);
    await next();
  };
}
