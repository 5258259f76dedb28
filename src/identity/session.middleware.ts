import type { Context, MiddlewareHandler } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { AppContext } from '../context.ts';
import { timingSafeEqual } from '../crypto/tokens.ts';
import { ApiError } from '../errors.ts';
import type { AppEnv } from '../http/env.ts';
import { unix } from '../platform/clock.ts';
import { createSessionStore, type Session, type SessionKind, type SessionTimeouts } from './session.store.ts';

export interface SessionOptions {
  kind: SessionKind;
  /** Must start with `__Host-`: Secure, no Domain, Path=/ — the cookie cannot be planted by a sibling host. */
  cookieName: string;
  path?: '/';
  /** Defaults to `[identity] session_idle` / `session_absolute`. */
  timeouts?: SessionTimeouts;
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

/**
 * Every request gets a server-side session: the one behind the cookie while it is within its idle and
 * absolute timeouts, otherwise a fresh anonymous one (a POST on a fresh session then fails its CSRF
 * check, which is what a timed-out form should do). Generic over the surface: the identity experience
 * and the developer portal each pass their own kind and cookie.
 */
export function sessionMiddleware(ctx: AppContext, options: SessionOptions): MiddlewareHandler<Env> {
  const opts: Required<SessionOptions> = {
    path: '/',
    timeouts: options.timeouts ?? sessionTimeouts(ctx),
    ...options,
  };
  if (!opts.cookieName.startsWith('__Host-')) throw new Error('session cookies use the __Host- prefix');
  const store = createSessionStore(ctx.db);
  return async function session(c, next) {
    const now = unix(ctx.clock);
    const token = getCookie(c, opts.cookieName) ?? '';
    let session = await store.resume(opts.kind, token, now, opts.timeouts);
    if (!session) {
      const created = await store.create(opts.kind, now, opts.timeouts);
      session = created.session;
      writeCookie(c, opts, created.token, session, now);
    }
    c.set('session', session);
    c.set('sessionOptions', opts);
    await next();
  };
}

/** Signs the subject into the current session (rotating its id and cookie) and returns the new session. */
export async function signInSession<E extends Env>(
  c: Context<E>,
  ctx: AppContext,
  subject: { subjectId: string; authTime: number; amr: string[] },
): Promise<Session> {
  const opts = c.get('sessionOptions');
  const now = unix(ctx.clock);
  const { token, session } = await createSessionStore(ctx.db).signIn(c.get('session'), subject, now);
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

/**
 * Refuses every state-changing request that does not carry the session's CSRF token in the form, and
 * any the browser says came from elsewhere. Runs after `sessionMiddleware`. Browsers send
 * `Origin: null` on our own forms because the pages use `Referrer-Policy: no-referrer`, so a `null`
 * origin is accepted only when Fetch Metadata (`Sec-Fetch-Site: same-origin`) vouches for it.
 */
export function csrfProtection(allowedOrigins: string[]): MiddlewareHandler<Env> {
  const origins = new Set(allowedOrigins.map((o) => new URL(o).origin));
  return async function csrf(c, next) {
    if (c.req.method === 'GET' || c.req.method === 'HEAD' || c.req.method === 'OPTIONS') return next();
    const site = c.req.header('sec-fetch-site');
    const origin = c.req.header('origin');
    const foreign =
      (site !== undefined && site !== 'same-origin') ||
      (origin !== undefined && (origin === 'null' ? site !== 'same-origin' : !origins.has(origin)));
    if (foreign) throw new ApiError('CSRF_FAILED', 'This form was sent from another site.', 403);
    const type = c.req.header('content-type') ?? '';
    let sent = '';
    if (type.startsWith('application/x-www-form-urlencoded') || type.startsWith('multipart/form-data')) {
      const body = await c.req.parseBody();
      const v = body[CSRF_FIELD];
      sent = typeof v === 'string' ? v : '';
    }
    if (!sent || !(await timingSafeEqual(sent, c.get('session').csrfSecret)))
      throw new ApiError(
        'CSRF_FAILED',
        'This form has expired or was not sent from this site. Go back to the application and start again.',
        403,
      );
    await next();
  };
}
