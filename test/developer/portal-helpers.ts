import { createApp } from '../../src/app.ts';
import { findDeveloperByEmail, markEmailVerified } from '../../src/developer/developer.store.ts';
import { type TestContext, testContext } from '../helpers/context.ts';
import { Browser, csrfOf, location } from '../identity/flow-helpers.ts';

export const P = '/developer';
export const PASSWORD = 'correct horse battery staple';
export { Browser, csrfOf, location };

export interface Portal {
  ctx: TestContext;
  app: ReturnType<typeof createApp>;
  cleanup(): void;
}

export async function portal(opts: { signup?: 'open' | 'invite'; extra?: string } = {}): Promise<Portal> {
  const ctx = await testContext({
    extra: `[developer]\nsignup = "${opts.signup ?? 'open'}"\n${opts.extra ?? ''}`,
  });
  const app = createApp(ctx);
  return { ctx, app, cleanup: () => ctx.cleanup() };
}

// The first id with `prefix` that a page shows in a <code> element: a bare search for the prefix also
// finds those letters inside other random values on the page (a CSRF token, a secret).
const codeWithPrefix = (prefix: string) => (html: string) =>
  new RegExp(`<code>(${prefix}[\\w-]+)</code>`).exec(html)?.[1];
/** The id of the first webhook endpoint a page lists. */
export const endpointIdOn = codeWithPrefix('we_');
/** The id of the first API key a page lists. */
export const apiKeyIdOn = codeWithPrefix('key_');

/** GET a page and return its HTML and CSRF token. */
export async function page(b: Browser, path: string) {
  const res = await b.get(path);
  const html = await res.text();
  return { res, html, csrf: csrfOf(html) };
}

/** The POST of a form as a browser sends it, with the CSRF token of the form page; call it to send it. */
export async function formPost(
  b: Browser,
  formPath: string,
  action: string,
  fields: Record<string, string | string[]>,
): Promise<() => Promise<Response>> {
  const { csrf } = await page(b, formPath);
  const body = new URLSearchParams({ csrf_token: csrf });
  for (const [k, v] of Object.entries(fields)) for (const x of [v].flat()) body.append(k, x);
  return () =>
    b.request(action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: b.origin },
      body: body.toString(),
    });
}

/** GET the form page, then POST it with its CSRF token. */
export async function submit(
  b: Browser,
  formPath: string,
  action: string,
  fields: Record<string, string | string[]>,
): Promise<Response> {
  return (await formPost(b, formPath, action, fields))();
}

/**
 * A form submitted as a browser does: a 303 is followed to the page it names. `reload()` is the
 * browser's reload: it fetches that page again, or, when the POST answered with a page itself, sends
 * the POST again.
 */
export async function submitPage(
  b: Browser,
  formPath: string,
  action: string,
  fields: Record<string, string | string[]>,
): Promise<{ posted: Response; res: Response; html: string; reload(): Promise<Response> }> {
  const post = await formPost(b, formPath, action, fields);
  const posted = await post();
  const reload = posted.status === 303 ? () => b.get(location(posted)) : post;
  const res = posted.status === 303 ? await reload() : posted;
  return { posted, res, html: await res.text(), reload };
}

/** Signs up through the form; the address counts as verified unless `verified: false`. */
/** The sign-up form submitted with PASSWORD; `portal` is where the portal lives (default P). */
export function submitSignUp(
  b: Browser,
  email: string,
  opts: { portal?: string; name?: string } = {},
): Promise<Response> {
  const form = `${opts.portal ?? P}/signup`;
  const name = opts.name ?? email.split('@')[0]!;
  return submit(b, form, form, { email, name, password: PASSWORD, confirm: PASSWORD });
}

export async function signUp(p: Portal, email: string, opts: { verified?: boolean } = {}): Promise<Browser> {
  const b = new Browser(p.app);
  const res = await submitSignUp(b, email);
  if (res.status !== 303) throw new Error(`sign-up answered ${res.status}: ${await res.text()}`);
  const dev = findDeveloperByEmail(p.ctx.db, email)!;
  if (opts.verified !== false) markEmailVerified(p.ctx.db, p.ctx.clock, dev.developerId);
  return b;
}

export async function createApp_(
  b: Browser,
  fields: Partial<Record<string, string | string[]>> = {},
): Promise<{ res: Response; html: string; applicationId: string }> {
  const { res, html } = await submitPage(b, `${P}/apps/new`, `${P}/apps`, {
    name: 'Acme Shop',
    type: 'confidential',
    redirect_uris: 'https://rp.example/callback',
    scopes: ['openid', 'profile', 'age_over_18'],
    document_types: ['passport', 'id_card'],
    document_countries: 'all',
    ...(fields as Record<string, string | string[]>),
  });
  const applicationId = /\/apps\/(app_[\w-]+)/.exec(html)?.[1] ?? '';
  return { res, html, applicationId };
}
