import { afterAll, beforeAll, expect, test } from 'bun:test';
import {
  createVerityClient,
  type IdTokenAlg,
  IdTokenError,
  memoryTransactionStore,
} from '../../src/sdk/index.ts';
import { createTestApp } from '../helpers/apps.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { mintCode, REDIRECT } from '../oauth/fixtures.ts';

/** The SDK validates the ID tokens of an application that chose ES256 or EdDSA, from a real server. */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

async function signIn(alg: IdTokenAlg, expected?: IdTokenAlg) {
  const app = await createTestApp(server.ctx, {
    type: 'confidential',
    redirectUris: [REDIRECT],
    scopes: ['openid'],
    idTokenAlg: alg,
  });
  const issuer = server.ctx.config.server.base_url;
  const client = createVerityClient({
    issuer,
    clientId: app.clientId,
    clientSecret: app.clientSecret!,
    redirectUri: REDIRECT,
    store: memoryTransactionStore(),
    fetch: (input, init) => fetch(String(input).replace(issuer, server.url), init),
    clock: server.ctx.clock,
    ...(expected ? { idTokenAlg: expected } : {}),
  });
  const m = await mintCode(server.ctx, app, { scopes: ['openid'] });
  const tokens = await client.exchangeCode(m.code, { codeVerifier: m.verifier!, redirectUri: REDIRECT });
  return client.validateIdToken(tokens.id_token!, m.nonce!, tokens.access_token);
}

test.each(['ES256', 'EdDSA'] as const)('%s: the token, its signature and at_hash validate', async (alg) => {
  const claims = await signIn(alg, alg);
  expect(claims.sub).toBeString();
  expect(claims.at_hash).toBeString();
});

test('a client expecting RS256 (the default) refuses an EdDSA token', async () => {
  const err = await signIn('EdDSA').catch((e) => e);
  expect(err).toBeInstanceOf(IdTokenError);
  expect(err.code).toBe('id_token_alg');
});
