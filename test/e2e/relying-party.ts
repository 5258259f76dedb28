import * as oidc from 'openid-client';
import type { Browser, Page } from 'playwright-core';

/**
 * A loopback relying party: `/callback` records the query it receives; `/start?to=URL` is a page
 * whose button opens URL in a popup (as an application using `display=popup` does).
 */
export function startRelyingParty() {
  const callbacks: Record<string, string>[] = [];
  const waiters: ((q: Record<string, string>) => void)[] = [];
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(req) {
      const url = new URL(req.url);
      if (url.pathname === '/callback') {
        const q = Object.fromEntries(url.searchParams);
        callbacks.push(q);
        for (const w of waiters.splice(0)) w(q);
        // The empty icon keeps the browser from asking for /favicon.ico (a 404 is a console error).
        return new Response(
          '<!doctype html><title>Done</title><link rel="icon" href="data:,"><p>Signed in</p>',
          {
            headers: { 'content-type': 'text/html' },
          },
        );
      }
      if (url.pathname === '/start') {
        const to = JSON.stringify(url.searchParams.get('to'));
        return new Response(
          `<!doctype html><title>App</title><link rel="icon" href="data:,"><button id="go">Sign in with Verity</button>
           <script>document.getElementById('go').onclick = () => window.open(${to}, 'verity', 'width=480,height=640');</script>`,
          { headers: { 'content-type': 'text/html' } },
        );
      }
      return new Response('not found', { status: 404 });
    },
  });
  const origin = `http://127.0.0.1:${server.port}`;
  return {
    origin,
    callbackUrl: `${origin}/callback`,
    callbacks,
    /** The next callback's query (or the last one if it already arrived). */
    nextCallback(): Promise<Record<string, string>> {
      return new Promise((resolve) => waiters.push(resolve));
    },
    stop: () => server.stop(true),
  };
}

export type RelyingParty = ReturnType<typeof startRelyingParty>;

/** Collects CSP violations and page errors, which a correct page never produces. */
export function watchConsole(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(e.message));
  return problems;
}

/** Sandbox persona → face pass → Allow, by role and accessible name as a person (or screen reader) finds them. */
export async function completeSandboxFlow(page: Page, persona = 'Ada Sandbox'): Promise<void> {
  await page.getByRole('button', { name: persona, exact: true }).click();
  await page.getByRole('button', { name: 'Pass face check' }).click();
  await page.getByRole('button', { name: 'Allow' }).click();
}

export interface OpenIdSignIn {
  browser: Browser;
  rp: RelyingParty;
  /** openid-client's configuration from discovery, with the client's authentication method. */
  config: oidc.Configuration;
  scope: string;
  /** A different purpose per sign-in of one person: an identical earlier consent skips the consent screen. */
  purpose: string;
  /** `popup`: the relying party's page opens the authorization URL in a popup, as a button would. */
  display?: 'page' | 'popup';
  persona?: string;
  /** More authorization parameters, e.g. `claims`. */
  params?: Record<string, string>;
}

/**
 * The standard relying-party sequence with `openid-client`: PKCE, state and nonce, the authorization
 * URL completed by a sandbox persona in a fresh Chromium context, then the code exchanged with the
 * state, nonce and ID token checked by the library (it throws when any of them is wrong).
 */
export async function signInWithOpenIdClient(o: OpenIdSignIn) {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const url = oidc.buildAuthorizationUrl(o.config, {
    redirect_uri: o.rp.callbackUrl,
    scope: o.scope,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
    purpose: o.purpose,
    ...(o.display ? { display: o.display } : {}),
    ...o.params,
  });

  const context = await o.browser.newContext();
  let query: Record<string, string>;
  try {
    let page: Page;
    if (o.display === 'popup') {
      const opener = await context.newPage();
      await opener.goto(`${o.rp.origin}/start?to=${encodeURIComponent(url.href)}`);
      [page] = await Promise.all([opener.waitForEvent('popup'), opener.getByRole('button').click()]);
    } else {
      page = await context.newPage();
      await page.goto(url.href);
    }
    const arrived = o.rp.nextCallback();
    await completeSandboxFlow(page, o.persona);
    query = await arrived;
  } finally {
    await context.close();
  }

  const callback = new URL(o.rp.callbackUrl);
  for (const [k, v] of Object.entries(query)) callback.searchParams.set(k, v);
  return oidc.authorizationCodeGrant(o.config, callback, {
    pkceCodeVerifier: verifier,
    expectedState: state,
    expectedNonce: nonce,
    idTokenExpected: true,
  });
}
