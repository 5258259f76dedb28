// Run by test/sdk/package.test.ts under node, bun and deno in a project that installed the packed
// @verity/sdk. Prints the authorization URL, reads the callback URL the test's browser reached from
// stdin, completes the sign-in and prints what the application would see.
import { createInterface } from 'node:readline';
import { createVerityClient, memoryTransactionStore, OAuthResponseError } from '@verity/sdk';

const env = process.env;
const verity = createVerityClient({
  issuer: env.VERITY_ISSUER,
  clientId: env.VERITY_CLIENT_ID,
  clientSecret: env.VERITY_CLIENT_SECRET,
  redirectUri: env.VERITY_REDIRECT_URI,
  store: memoryTransactionStore(),
});

const discovery = await verity.discovery();
const { authorizationUrl } = await verity.startSignIn({
  sessionId: 'browser-session-1',
  scope: 'openid email',
  purpose: env.VERITY_PURPOSE,
});
console.log(JSON.stringify({ authorizationUrl }));

const lines = createInterface({ input: process.stdin });
const callback = await new Promise((resolve) => lines.once('line', resolve));
lines.close();

const { result } = await verity.handleCallback(callback, 'browser-session-1');
const info = await verity.userinfo(result.tokens.access_token);
const refused = await verity.userinfo('at_not_a_token').catch((e) => e);
console.log(
  JSON.stringify({
    issuer: discovery.issuer,
    sub: result.claims.sub,
    scopes: result.scopes,
    email: info.email,
    sameSubject: info.sub === result.claims.sub,
    badToken: {
      oauthError: refused instanceof OAuthResponseError,
      code: refused.code,
      status: refused.status,
    },
  }),
);
