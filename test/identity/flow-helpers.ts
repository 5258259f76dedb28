import { expect } from 'bun:test';
import { createHash } from 'node:crypto';
import { createApp } from '../../src/app.ts';
import { randomToken } from '../../src/crypto/tokens.ts';
import type { Db } from '../../src/db/open.ts';
import {
  anonymousSession,
  createSessionStore,
  type SessionKind,
  type SessionTimeouts,
} from '../../src/web/session.store.ts';
import { createTestApp, type TestApp } from '../helpers/apps.ts';
import { type TestContext, testContext } from '../helpers/context.ts';
import { cookieHeader, storeCookies } from '../helpers/cookie-jar.ts';

export const CALLBACK = 'https://rp.example/callback';
export const ALL_SCOPES = 'openid profile email age_over_18 identity_assurance_level liveness_verified';

/** A browser stand-in over `app.request`: keeps cookies, follows nothing, remembers the last page. */
export class Browser {
  cookies = new Map<string, string>();
  setCookies: string[] = [];
  constructor(
    private readonly app: ReturnType<typeof createApp>,
    readonly ip = '198.51.100.7',
    readonly origin = 'http://localhost:8080',
  ) {}

  async request(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size) headers.set('cookie', cookieHeader(this.cookies));
    const res = await this.app.request(url, { ...init, headers }, { ip: this.ip });
    this.setCookies = res.headers.getSetCookie();
    storeCookies(this.cookies, this.setCookies);
    return res;
  }

  get(url: string) {
    return this.request(url);
  }

  /** A form POST as a browser sends it: urlencoded, with our Origin unless told otherwise. */
  post(url: string, fields: Record<string, string>, opts: { origin?: string | null } = {}) {
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
    const origin = opts.origin === undefined ? this.origin : opts.origin;
    if (origin !== null) headers.origin = origin;
    return this.request(url, { method: 'POST', headers, body: new URLSearchParams(fields).toString() });
  }
}

/** A Browser talking to a real listener at `base` over HTTP (redirects are not followed, as by `Browser`). */
export const httpBrowser = (base: string, ip?: string): Browser =>
  new Browser(
    {
      request: (url: string, init: RequestInit) => fetch(`${base}${url}`, { ...init, redirect: 'manual' }),
    } as unknown as ConstructorParameters<typeof Browser>[0],
    ip,
    base,
  );

/** The `data` of every `claim_access.completed` event queued so far, oldest first. */
export const claimAccessEvents = (db: Db) =>
  db.sql
    .prepare<{ body: string }>(
      "SELECT body FROM webhook_events WHERE type = 'claim_access.completed' ORDER BY id",
    )
    .all()
    .map((r) => JSON.parse(r.body).data);

export const csrfOf = (html: string): string => /name="csrf_token" value="([^"]+)"/.exec(html)?.[1] ?? '';
export const location = (res: Response): string => res.headers.get('location') ?? '';
export const pathOf = (url: string): string => {
  const u = new URL(url, 'http://localhost:8080');
  return u.pathname + u.search;
};

export function pkcePair() {
  const verifier = crypto.randomUUID() + crypto.randomUUID();
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  return { verifier, challenge };
}

export interface Flow {
  ctx: TestContext;
  app: ReturnType<typeof createApp>;
  client: TestApp;
  browser: Browser;
  /** Starts an authorize request; returns the identity URL (path) it redirects to. */
  authorize(params?: Record<string, string>, browser?: Browser): Promise<string>;
  cleanup(): void;
}

export async function flow(
  opts: { environment?: 'sandbox' | 'production'; scopes?: string; extra?: string; name?: string } = {},
): Promise<Flow> {
  const ctx = await testContext({
    extra: `[rate_limits.oauth]\nrequests = 1000\n${opts.extra ?? ''}`,
  });
  const client = await createTestApp(ctx, {
    type: 'confidential',
    redirectUris: [CALLBACK],
    scopes: opts.scopes ?? ALL_SCOPES,
    environment: opts.environment ?? 'sandbox',
    name: opts.name ?? 'Acme Shop',
    subscribed: true,
  });
  const app = createApp(ctx);
  const browser = new Browser(app);
  return {
    ctx,
    app,
    client,
    browser,
    async authorize(params = {}, b = browser) {
      const { challenge } = pkcePair();
      const q = new URLSearchParams({
        response_type: 'code',
        client_id: client.clientId,
        redirect_uri: CALLBACK,
        scope: opts.scopes ?? ALL_SCOPES,
        state: 'state-123',
        nonce: 'nonce-123',
        code_challenge: challenge,
        code_challenge_method: 'S256',
        purpose: 'Check your age before delivery',
        ...params,
      });
      const res = await b.get(`/v1/oauth/authorize?${q}`);
      if (res.status !== 303) throw new Error(`authorize answered ${res.status}: ${await res.text()}`);
      return pathOf(location(res));
    },
    cleanup: () => ctx.cleanup(),
  };
}

/** Opens the request page and returns its HTML and CSRF token. */
export async function open(b: Browser, path: string) {
  const res = await b.get(path);
  const html = await res.text();
  return { res, html, csrf: csrfOf(html) };
}

/** Sandbox: persona → face pass, ending at the consent page (or the callback when consent is reused). */
export async function signInPersona(
  b: Browser,
  path: string,
  persona = 'ada',
  outcome = 'none',
): Promise<Response> {
  const { csrf } = await open(b, path);
  return b.post(`${path}/signin`, { csrf_token: csrf, persona, outcome });
}

export async function passFace(b: Browser, path: string, outcome = 'pass'): Promise<Response> {
  const { csrf } = await open(b, `${path}/face`);
  return b.post(`${path}/face`, { csrf_token: csrf, outcome });
}

export async function decide(b: Browser, path: string, decision: 'allow' | 'deny'): Promise<Response> {
  const { csrf } = await open(b, `${path}/consent`);
  return b.post(`${path}/consent`, { csrf_token: csrf, decision });
}

/** The client's code exchange, as a confidential client makes it; fails the test unless it succeeds. */
export async function exchangeCode(
  app: ReturnType<typeof createApp>,
  client: TestApp,
  code: string,
  verifier: string,
): Promise<{ access_token: string; id_token: string }> {
  const res = await app.request('/v1/oauth/token', {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${btoa(`${client.clientId}:${client.clientSecret}`)}`,
    },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: CALLBACK,
      code_verifier: verifier,
    }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { access_token: string; id_token: string };
}

export const callbackParams = (res: Response) => {
  const u = new URL(location(res));
  if (`${u.origin}${u.pathname}` !== CALLBACK) throw new Error(`not the callback: ${u}`);
  return Object.fromEntries(u.searchParams);
};

/**
 * The whole sandbox flow for a client in browser `b`: persona (unless the browser is signed in
 * already), face pass, and Allow when the consent screen comes. Returns the response that leaves for
 * the callback, and whether the consent screen was shown.
 */
export async function connectPersona(
  b: Browser,
  clientId: string,
  opts: { purpose: string; persona?: string; scope?: string },
): Promise<{ res: Response; askedConsent: boolean; verifier: string }> {
  const { challenge, verifier } = pkcePair();
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: CALLBACK,
    scope: opts.scope ?? 'openid email',
    state: 'state-123',
    nonce: 'nonce-123',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    purpose: opts.purpose,
  });
  const path = pathOf(location(await b.get(`/v1/oauth/authorize?${q}`)));
  const start = await open(b, path);
  if (start.res.status === 200)
    await b.post(`${path}/signin`, {
      csrf_token: start.csrf,
      persona: opts.persona ?? 'ada',
      outcome: 'none',
    });
  let res = await passFace(b, path);
  const askedConsent = location(res).endsWith('/consent');
  if (askedConsent) res = await decide(b, path, 'allow');
  return { res, askedConsent, verifier };
}

/** A stored (signed-in) session created at `now`, as a sign-in makes one; returns its cookie value. */
export async function storedSession(
  db: Db,
  kind: SessionKind,
  now: number,
  t: SessionTimeouts,
): Promise<{ token: string }> {
  const anonymous = await anonymousSession(kind, randomToken('', 32), now, t);
  const signedIn = await createSessionStore(db).signIn(
    anonymous,
    { subjectId: 'psn_test', authTime: now, amr: ['pwd'] },
    now,
  );
  return signedIn!;
}
