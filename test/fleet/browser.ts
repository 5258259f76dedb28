import { createHash } from 'node:crypto';
import { cookieHeader, storeCookies } from '../helpers/cookie-jar.ts';

/**
 * A browser stand-in over real HTTP: keeps its cookies, follows no redirect, and sends each request to
 * the next of `targets` in turn, so successive steps of one sign-in land on different instances. The
 * client address reaches the servers in `X-Forwarded-For` (they run with `trust_proxy`).
 */
export class FleetBrowser {
  cookies = new Map<string, string>();
  private turn = 0;
  constructor(
    private readonly targets: string[],
    /** The public origin the instances are configured with: forms post from it. */
    readonly origin: string,
    readonly ip: string,
  ) {}

  /** The instance the next request goes to. */
  next(): string {
    return this.targets[this.turn++ % this.targets.length]!;
  }

  async request(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    headers.set('x-forwarded-for', this.ip);
    if (this.cookies.size) headers.set('cookie', cookieHeader(this.cookies));
    const res = await fetch(`${this.next()}${path}`, { ...init, headers, redirect: 'manual' });
    storeCookies(this.cookies, res.headers.getSetCookie());
    return res;
  }

  get(path: string) {
    return this.request(path);
  }

  /** A form POST as a browser sends it: urlencoded, from the public origin. */
  post(path: string, fields: Record<string, string>) {
    return this.request(path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: this.origin },
      body: new URLSearchParams(fields).toString(),
    });
  }

  /** A GET of a page and its CSRF token. */
  async page(path: string): Promise<{ res: Response; html: string; csrf: string }> {
    const res = await this.get(path);
    const html = await res.text();
    return { res, html, csrf: /name="csrf_token" value="([^"]+)"/.exec(html)?.[1] ?? '' };
  }
}

/** Path and query of a redirect's target. */
export const locationPath = (res: Response): string => {
  const u = new URL(res.headers.get('location') ?? '', 'http://invalid');
  return u.pathname + u.search;
};

export function pkcePair() {
  const verifier = crypto.randomUUID() + crypto.randomUUID();
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export const CALLBACK = 'https://rp.example/callback';

export interface Client {
  clientId: string;
  clientSecret: string;
}

/**
 * The sandbox flow in `b` up to the callback: authorize, persona sign-in (unless signed in already),
 * face pass, Allow when asked. Returns the code (or throws with the step that went wrong), the PKCE
 * verifier, and whether the browser was signed in already.
 */
export async function signInForCode(
  b: FleetBrowser,
  client: Client,
  opts: { scope?: string; persona?: string; purpose?: string } = {},
): Promise<{ code: string; verifier: string; wasSignedIn: boolean }> {
  const { verifier, challenge } = pkcePair();
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: CALLBACK,
    scope: opts.scope ?? 'openid email',
    state: crypto.randomUUID(),
    nonce: crypto.randomUUID(),
    code_challenge: challenge,
    code_challenge_method: 'S256',
    purpose: opts.purpose ?? 'Fleet test',
  });
  const step = async (what: string, res: Response, status = 303) => {
    if (res.status !== status)
      throw new Error(`${what} answered ${res.status}: ${res.bodyUsed ? '' : await res.text()}`);
    return res;
  };
  const path = locationPath(await step('authorize', await b.get(`/v1/oauth/authorize?${q}`)));
  const start = await b.page(path);
  // A browser signed in already is sent on to the face step.
  const wasSignedIn = start.res.status === 303;
  if (!wasSignedIn) {
    await step('the request page', start.res, 200);
    await step(
      'sign-in',
      await b.post(`${path}/signin`, {
        csrf_token: start.csrf,
        persona: opts.persona ?? 'ada',
        outcome: 'none',
      }),
    );
  }
  const face = await b.page(`${path}/face`);
  await step('the face page', face.res, 200);
  let res = await step('face', await b.post(`${path}/face`, { csrf_token: face.csrf, outcome: 'pass' }));
  if (locationPath(res).endsWith('/consent')) {
    const consent = await b.page(`${path}/consent`);
    await step('the consent page', consent.res, 200);
    res = await step(
      'consent',
      await b.post(`${path}/consent`, { csrf_token: consent.csrf, decision: 'allow' }),
    );
  }
  const callback = new URL(res.headers.get('location') ?? '');
  const code = callback.searchParams.get('code');
  if (`${callback.origin}${callback.pathname}` !== CALLBACK || !code)
    throw new Error(`the flow did not end with a code: ${callback}`);
  return { code, verifier, wasSignedIn };
}

/** The token request for a code, as a confidential client sends it (HTTP Basic). */
export const tokenRequest = (client: Client, code: string, verifier: string, ip: string): RequestInit => ({
  method: 'POST',
  headers: {
    'content-type': 'application/x-www-form-urlencoded',
    accept: 'application/json',
    authorization: `Basic ${btoa(`${client.clientId}:${client.clientSecret}`)}`,
    'x-forwarded-for': ip,
  },
  body: new URLSearchParams({
    grant_type: 'authorization_code',
    code,
    redirect_uri: CALLBACK,
    code_verifier: verifier,
  }).toString(),
});
