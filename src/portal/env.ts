import type { Context } from 'hono';
import { type ApplicationView, findApplication } from '../apps/application.store.ts';
import type { AppContext } from '../context.ts';
import { type Developer, findDeveloper } from '../developer/developer.store.ts';
import { NotFoundError, ValidationError } from '../errors.ts';
import type { AppEnv } from '../http/env.ts';
import type { SecurityHeadersEnv } from '../http/security-headers.ts';
import { csrfToken, type SessionEnv } from '../web/session.middleware.ts';
import { portalMessages } from './messages/index.ts';
import type { FieldErrors, PortalProps } from './pages/layout.tsx';
import { keepResult, takeResult } from './results.ts';

export type PortalEnv = AppEnv & SessionEnv & SecurityHeadersEnv;
export type PC = Context<PortalEnv>;
export type Env = 'sandbox' | 'production';

/** Base path and the routing helpers every portal route file shares. */
export interface Portal {
  ctx: AppContext;
  base: string;
  props(c: PC, section?: PortalProps['section']): PortalProps;
  /** The signed-in, active developer, or undefined. */
  developer(c: PC): Developer | undefined;
  /** The signed-in developer; pages behind sign-in are only routed after `requireSignIn`. */
  me(c: PC): Developer;
  /** The developer's own application; anything else is the same 404. */
  ownApp(c: PC, applicationId: string): ApplicationView;
  /** Keeps a form's one-time result in the session for the page the form redirects to. */
  keep(c: PC, slot: string, value: object): Promise<void>;
  /** That result, once: a reload of the page gets undefined. */
  take<T extends object>(c: PC, slot: string): Promise<T | undefined>;
}

export function createPortal(ctx: AppContext, base: string): Portal {
  const developer = (c: PC) => {
    const id = c.get('session').subjectId;
    const dev = id ? findDeveloper(ctx.db, id) : undefined;
    return dev?.status === 'active' ? dev : undefined;
  };
  const me = (c: PC) => {
    const dev = developer(c);
    if (!dev) throw new NotFoundError();
    return dev;
  };
  return {
    ctx,
    base,
    developer,
    me,
    props: (c, section) => ({
      m: portalMessages(),
      nonce: c.get('cspNonce'),
      csrf: csrfToken(c),
      base,
      signedInEmail: developer(c)?.email,
      section,
    }),
    ownApp(c, applicationId) {
      const app = findApplication(ctx.db, applicationId);
      if (!app || app.ownerDeveloperId !== me(c).developerId) throw new NotFoundError();
      return app;
    },
    keep: (c, slot, value) => keepResult(ctx, c.get('session').idHash, slot, value),
    take: (c, slot) => takeResult(ctx, c.get('session').idHash, slot),
  };
}

/** Field errors of a domain ValidationError, keyed by form field id through `fieldOf(path)`. */
export function fieldErrors(
  err: ValidationError,
  fieldOf: (path: string) => string,
  fallback: string,
): FieldErrors {
  const out: FieldErrors = {};
  for (const f of err.fields.length ? err.fields : [{ path: '', message: err.message }]) {
    const id = fieldOf(f.path) || fallback;
    out[id] ??= capitalise(f.message);
  }
  return out;
}

const capitalise = (s: string) => (s ? s[0]!.toUpperCase() + s.slice(1) : s);

/** Runs a domain call; a ValidationError comes back as field errors for re-rendering the form. */
export async function attempt<T>(
  fn: () => T | Promise<T>,
  fieldOf: (path: string) => string,
  fallback: string,
): Promise<{ ok: true; value: T } | { ok: false; errors: FieldErrors }> {
  try {
    return { ok: true, value: await fn() };
  } catch (err) {
    if (err instanceof ValidationError) return { ok: false, errors: fieldErrors(err, fieldOf, fallback) };
    throw err;
  }
}

export const isEnv = (v: string | undefined): v is Env => v === 'sandbox' || v === 'production';
