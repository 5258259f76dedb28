import { afterAll, beforeAll, expect, test } from 'bun:test';
import {
  createVerityClient,
  memoryTransactionStore,
  OAuthResponseError,
  type TokenEndpointAuthMethod,
} from '../../src/sdk/index.ts';
import { createTestApp, type TestApp } from '../helpers/apps.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { REDIRECT } from '../oauth/fixtures.ts';
import { issueToken } from '../userinfo/fixtures.ts';

/** `client.revokeToken` against a real server: the token stops working, errors come back typed. */

let server: TestServer;
let confidential: TestApp;
let publicApp: TestApp;

beforeAll(async () => {
  server = await startTestServer({ extra: '[rate_limits.oauth]\nrequests = 1000' });
  confidential = await createTestApp(server.ctx, {
    type: 'confidential',
    redirectUris: [REDIRECT],
    scopes: 'openid profile',
  });
  publicApp = await createTestApp(server.ctx, { type: 'public', redirectUris: [REDIRECT], scopes: 'openid' });
});
afterAll(() => server.stop());

function client(app: TestApp, opts: { secret?: string; authMethod?: TokenEndpointAuthMethod } = {}) {
  const issuer = server.ctx.config.server.base_url;
  const secret = opts.secret ?? app.clientSecret;
  return createVerityClient({
    issuer,
    clientId: app.clientId,
    ...(secret ? { clientSecret: secret } : {}),
    ...(opts.authMethod ? { authMethod: opts.authMethod } : {}),
    redirectUri: REDIRECT,
    store: memoryTransactionStore(),
    // The issuer names localhost; the server listens on 127.0.0.1.
    fetch: (input, init) => fetch(String(input).replace(issuer, server.url), init),
  });
}

const issue = (app: TestApp) => issueToken(server.ctx, app, { scopes: ['openid'] });

for (const [name, app, authMethod] of [
  ['a confidential client with HTTP Basic', () => confidential, undefined],
  ['a confidential client with client_secret_post', () => confidential, 'client_secret_post'],
  ['a public client', () => publicApp, undefined],
] as const)
  test(`${name} revokes its token, and UserInfo refuses it with invalid_token`, async () => {
    const c = client(app(), authMethod ? { authMethod } : {});
    const { accessToken } = await issue(app());
    expect((await c.userinfo(accessToken)).sub).toBeString();
    await c.revokeToken(accessToken);
    const err = await c.userinfo(accessToken).catch((e) => e);
    expect(err).toBeInstanceOf(OAuthResponseError);
    expect(err.code).toBe('invalid_token');
    expect(err.status).toBe(401);
    // Revoking it again, or a token that never existed, succeeds as well.
    await c.revokeToken(accessToken);
    await c.revokeToken('at_unknown');
  });

test('a wrong secret comes back as invalid_client, and the token keeps working', async () => {
  const { accessToken } = await issue(confidential);
  const err = await client(confidential, { secret: 'cs_test_wrong' })
    .revokeToken(accessToken)
    .catch((e) => e);
  expect(err).toBeInstanceOf(OAuthResponseError);
  expect(err.code).toBe('invalid_client');
  expect(err.status).toBe(401);
  expect((await client(confidential).userinfo(accessToken)).sub).toBeString();
});
