/**
 * The whole integration sequence with `openid-client` (a certified OpenID Connect relying-party
 * library), against a Verity server: discovery, PKCE + state + nonce, the sign-in in a browser, the
 * code exchange, ID-token validation against the JWKS, UserInfo and the identity-documents API.
 *
 *   npx bun docs/examples/openid-client.ts
 *
 * Environment: VERITY_ISSUER (default http://localhost:8080), CLIENT_ID (required), CLIENT_SECRET (only
 * for a confidential application), REDIRECT_URI (default http://localhost:3000/callback; the script
 * listens there for the callback, so it must be a loopback address registered for the application),
 * SCOPE (default "openid profile email").
 */
import { createServer } from 'node:http';
import * as oidc from 'openid-client';

export interface ExampleOptions {
  issuer: string;
  clientId: string;
  /** Confidential applications only; public applications rely on PKCE alone. */
  clientSecret?: string;
  redirectUri: string;
  scope: string;
  purpose?: string;
}

/** Listens on the redirect URI's loopback address and resolves with the first callback URL. */
function awaitCallback(redirectUri: string): { ready: Promise<void>; url: Promise<URL>; close(): void } {
  const target = new URL(redirectUri);
  let resolveUrl!: (u: URL) => void;
  const url = new Promise<URL>((r) => {
    resolveUrl = r;
  });
  const server = createServer((req, res) => {
    const received = new URL(req.url ?? '/', redirectUri);
    if (received.pathname !== target.pathname) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain' }).end('Signed in. You can close this tab.');
    resolveUrl(received);
  });
  const ready = new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(Number(target.port || 80), target.hostname.replace(/^\[|\]$/g, ''), () => resolve());
  });
  return { ready, url, close: () => server.close() };
}

/**
 * Runs the sequence. `openBrowser` receives the authorization URL: a person opens it and signs in
 * (sandbox: pick a persona, "Pass face check", "Allow").
 */
export async function runExample(opts: ExampleOptions, openBrowser: (url: string) => Promise<void> | void) {
  const issuer = new URL(opts.issuer);
  // Plain http is acceptable only for a server on this machine.
  const local = ['localhost', '127.0.0.1', '[::1]'].includes(issuer.hostname);
  const config = await oidc.discovery(
    issuer,
    opts.clientId,
    opts.clientSecret,
    opts.clientSecret ? oidc.ClientSecretBasic(opts.clientSecret) : oidc.None(),
    local ? { execute: [oidc.allowInsecureRequests] } : undefined,
  );

  // Kept by your backend in the transaction bound to the browser session, never sent to the browser.
  const codeVerifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const authorizationUrl = oidc.buildAuthorizationUrl(config, {
    redirect_uri: opts.redirectUri,
    scope: opts.scope,
    code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state,
    nonce,
    purpose: opts.purpose ?? 'Try Verity with openid-client',
  });

  const callback = awaitCallback(opts.redirectUri);
  try {
    await callback.ready;
    await openBrowser(authorizationUrl.href);
    const callbackUrl = await callback.url;

    // Checks state, exchanges the code with the verifier, validates the ID token (signature from the
    // JWKS, iss, aud, exp/iat with clock tolerance, nonce) and returns the tokens.
    const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
      pkceCodeVerifier: codeVerifier,
      expectedState: state,
      expectedNonce: nonce,
      idTokenExpected: opts.scope.split(' ').includes('openid'),
    });
    const claims = tokens.claims();
    const sub = claims?.sub ?? oidc.skipSubjectCheck;
    const userinfo = await oidc.fetchUserInfo(config, tokens.access_token, sub);

    let documents: unknown;
    if (opts.scope.split(' ').includes('identity_documents')) {
      const res = await oidc.fetchProtectedResource(
        config,
        tokens.access_token,
        new URL('/v1/userinfo/identity-documents', config.serverMetadata().issuer),
        'GET',
      );
      documents = await res.json();
    }
    return { tokens, claims, userinfo, documents };
  } finally {
    callback.close();
  }
}

if (import.meta.main) {
  const env = process.env;
  if (!env.CLIENT_ID) {
    console.error(
      'Set CLIENT_ID (and CLIENT_SECRET for a confidential application). See docs/quickstart.md.',
    );
    process.exit(2);
  }
  const result = await runExample(
    {
      issuer: env.VERITY_ISSUER ?? 'http://localhost:8080',
      clientId: env.CLIENT_ID,
      clientSecret: env.CLIENT_SECRET || undefined,
      redirectUri: env.REDIRECT_URI ?? 'http://localhost:3000/callback',
      scope: env.SCOPE ?? 'openid profile email',
    },
    (url) => console.log(`Open this URL in your browser and sign in:\n\n  ${url}\n`),
  );
  console.log('ID token claims:', result.claims);
  console.log('UserInfo:', result.userinfo);
  if (result.documents !== undefined)
    console.log('Identity documents:', JSON.stringify(result.documents, null, 2));
  process.exit(0);
}
