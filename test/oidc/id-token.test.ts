import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createLocalJWKSet, decodeProtectedHeader, type JSONWebKeySet, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import { base64url } from '../../src/crypto/encoding.ts';
import { sha256 } from '../../src/crypto/tokens.ts';
import { rotateManually } from '../../src/keys/key-admin.ts';
import { subjectFor } from '../../src/keys/pairwise.ts';
import type { SigningAlg } from '../../src/keys/signing-algs.ts';
import { createTestApp, type TestApp } from '../helpers/apps.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { basic, type Minted, mintCode, REDIRECT } from '../oauth/fixtures.ts';

let server: TestServer;
let app: TestApp;
let publicApp: TestApp;

beforeAll(async () => {
  server = await startTestServer({ extra: '[rate_limits.oauth]\nrequests = 1000' });
  app = await createTestApp(server.ctx, {
    type: 'confidential',
    redirectUris: [REDIRECT],
    scopes: ['openid', 'profile', 'email'],
  });
  publicApp = await createTestApp(server.ctx, {
    type: 'public',
    redirectUris: [REDIRECT],
    scopes: ['openid', 'profile'],
  });
});
afterAll(() => server.stop());

async function exchange(m: Minted, a: TestApp = app) {
  const res = await fetch(`${server.url}/v1/oauth/token`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      ...(a.clientSecret ? { Authorization: basic(a.clientId, a.clientSecret) } : {}),
    },
    body: JSON.stringify({
      grant_type: 'authorization_code',
      code: m.code,
      redirect_uri: m.redirectUri,
      code_verifier: m.verifier,
      ...(a.clientSecret ? {} : { client_id: a.clientId }),
    }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { access_token: string; id_token: string };
}

async function jwks() {
  return (await (await fetch(`${server.url}/.well-known/jwks.json`)).json()) as JSONWebKeySet;
}

describe('the ID token', () => {
  test('verifies against the served JWKS and carries every claim of DESIGN §5', async () => {
    const ctx = server.ctx;
    const authTime = Math.floor(ctx.clock.now().getTime() / 1000) - 42;
    const m = await mintCode(ctx, app, {
      scopes: ['openid', 'email'],
      grant: { authTime, acr: 'substantial', amr: ['pwd', 'face'] },
    });
    const tokens = await exchange(m);
    const header = decodeProtectedHeader(tokens.id_token);
    expect(header).toEqual({ alg: 'RS256', kid: (await ctx.keys.signingKey()).kid, typ: 'JWT' });
    const { payload } = await jwtVerify(tokens.id_token, createLocalJWKSet(await jwks()), {
      issuer: ctx.config.server.base_url,
      audience: app.clientId,
      algorithms: ['RS256'],
      currentDate: ctx.clock.now(),
      maxTokenAge: 60,
      clockTolerance: 0,
    });
    const iat = Math.floor(ctx.clock.now().getTime() / 1000);
    const expectedAtHash = base64url((await sha256(tokens.access_token)).slice(0, 16));
    expect(payload).toEqual({
      iss: ctx.config.server.base_url,
      sub: await subjectFor(ctx, app.applicationId, m.personId),
      aud: app.clientId,
      exp: iat + 900,
      iat,
      auth_time: authTime,
      nonce: m.nonce,
      azp: app.clientId,
      at_hash: expectedAtHash,
      acr: 'substantial',
      amr: ['pwd', 'face'],
    });
  });

  test('is refused by a verifier once 15 minutes have passed', async () => {
    const ctx = server.ctx;
    const m = await mintCode(ctx, app, { scopes: ['openid'] });
    const tokens = await exchange(m);
    const later = new Date(ctx.clock.now().getTime() + 900_000 + 61_000);
    await expect(
      jwtVerify(tokens.id_token, createLocalJWKSet(await jwks()), { currentDate: later, clockTolerance: 60 }),
    ).rejects.toThrow();
  });

  test('after a key rotation new tokens carry the new kid, still found in the JWKS', async () => {
    const ctx = server.ctx;
    const before = ctx.keys.store.active('RS256')!.kid;
    const m1 = await mintCode(ctx, app, { scopes: ['openid'] });
    const first = await exchange(m1);
    await rotateManually(ctx, { immediate: true });
    ctx.keys.invalidate();
    const m2 = await mintCode(ctx, app, { scopes: ['openid'], personId: m1.personId });
    const second = await exchange(m2);
    const kid = decodeProtectedHeader(second.id_token).kid;
    expect(kid).not.toBe(before);
    const set = createLocalJWKSet(await jwks());
    const a = await jwtVerify(first.id_token, set, { currentDate: ctx.clock.now() });
    const b = await jwtVerify(second.id_token, set, { currentDate: ctx.clock.now() });
    // The pairwise subject does not depend on signing keys.
    expect(b.payload.sub).toBe(a.payload.sub);
  });
});

describe('a standard OpenID Connect client (openid-client)', () => {
  async function run(a: TestApp, alg: SigningAlg = 'RS256') {
    const ctx = server.ctx;
    const config = await oidc.discovery(
      new URL(server.ctx.config.server.base_url),
      a.clientId,
      // The relying party registers the algorithm it accepts, as the application chose it.
      { id_token_signed_response_alg: alg, ...(a.clientSecret ? { client_secret: a.clientSecret } : {}) },
      a.clientSecret ? oidc.ClientSecretBasic(a.clientSecret) : oidc.None(),
      { execute: [oidc.allowInsecureRequests] },
    );
    // openid-client checks the ID token times against the real clock.
    server.clock.set(Date.now());
    const fresh = await mintCode(ctx, a, { scopes: ['openid', 'profile'] });
    const tokens = await oidc.authorizationCodeGrant(config, fresh.callback, {
      pkceCodeVerifier: fresh.verifier,
      expectedState: fresh.state,
      expectedNonce: fresh.nonce,
      idTokenExpected: true,
    });
    const claims = tokens.claims()!;
    expect(decodeProtectedHeader(tokens.id_token!)).toEqual({
      alg,
      kid: ctx.keys.store.active(alg)!.kid,
      typ: 'JWT',
    });
    expect(claims.sub).toBe(await subjectFor(ctx, a.applicationId, fresh.personId));
    expect(claims.nonce).toBe(fresh.nonce);
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.expires_in).toBe(900);
    expect(tokens.refresh_token).toBeUndefined();
  }

  test('discovers Verity and exchanges a code as a confidential client (Basic)', async () => {
    await run(app);
  });

  test('and as a public client with PKCE', async () => {
    await run(publicApp);
  });

  test.each(['ES256', 'EdDSA'] as const)('and as a client that chose %s ID tokens', async (alg) => {
    const chosen = await createTestApp(server.ctx, {
      type: 'confidential',
      redirectUris: [REDIRECT],
      scopes: ['openid', 'profile'],
      idTokenAlg: alg,
    });
    await run(chosen, alg);
  });

  test('a relying party expecting RS256 refuses an ES256 client’s token: the choice is in the header', async () => {
    const chosen = await createTestApp(server.ctx, {
      type: 'public',
      redirectUris: [REDIRECT],
      scopes: ['openid', 'profile'],
      idTokenAlg: 'ES256',
    });
    const refused = await run(chosen, 'RS256').then(
      () => undefined,
      (e: Error & { cause?: unknown }) => e,
    );
    expect(String(refused?.cause ?? refused)).toMatch(/alg/);
  });
});

describe('per-client signing algorithm', () => {
  const appWith = (alg: SigningAlg) =>
    createTestApp(server.ctx, {
      type: 'confidential',
      redirectUris: [REDIRECT],
      scopes: ['openid', 'email'],
      idTokenAlg: alg,
    });

  test.each(['ES256', 'EdDSA'] as const)(
    '%s: signed by that algorithm’s active key, verified by jose against the JWKS, same claims as RS256',
    async (alg) => {
      const ctx = server.ctx;
      const chosen = await appWith(alg);
      const m = await mintCode(ctx, chosen, { scopes: ['openid', 'email'] });
      const tokens = await exchange(m, chosen);
      expect(decodeProtectedHeader(tokens.id_token)).toEqual({
        alg,
        kid: ctx.keys.store.active(alg)!.kid,
        typ: 'JWT',
      });
      const set = createLocalJWKSet(await jwks());
      const { payload } = await jwtVerify(tokens.id_token, set, {
        issuer: ctx.config.server.base_url,
        audience: chosen.clientId,
        algorithms: [alg],
        currentDate: ctx.clock.now(),
      });
      expect(Object.keys(payload).sort()).toEqual(
        ['acr', 'amr', 'at_hash', 'aud', 'auth_time', 'azp', 'exp', 'iat', 'iss', 'nonce', 'sub'].sort(),
      );
      // OIDC Core §3.1.3.6: the alg's hash; Ed25519 signatures use SHA-512 for at_hash.
      const digest =
        alg === 'EdDSA'
          ? new Uint8Array(
              await crypto.subtle.digest('SHA-512', new TextEncoder().encode(tokens.access_token)),
            )
          : await sha256(tokens.access_token);
      expect(payload.at_hash).toBe(base64url(digest.slice(0, digest.length / 2)));
      // A verifier that allows only RS256 (the default) refuses it.
      await expect(
        jwtVerify(tokens.id_token, set, { algorithms: ['RS256'], currentDate: ctx.clock.now() }),
      ).rejects.toThrow();
    },
  );

  test('the default stays RS256, and changing the setting changes the next token at once', async () => {
    const ctx = server.ctx;
    const m1 = await mintCode(ctx, app, { scopes: ['openid'] });
    expect(decodeProtectedHeader((await exchange(m1)).id_token).alg).toBe('RS256');
    const { updateApplication } = await import('../../src/apps/registration.ts');
    updateApplication(ctx.db, ctx.clock, app.applicationId, {
      idTokenSignedResponseAlg: 'EdDSA',
      actor: 'cli',
    });
    try {
      const m2 = await mintCode(ctx, app, { scopes: ['openid'], personId: m1.personId });
      expect(decodeProtectedHeader((await exchange(m2)).id_token).alg).toBe('EdDSA');
    } finally {
      updateApplication(ctx.db, ctx.clock, app.applicationId, {
        idTokenSignedResponseAlg: 'RS256',
        actor: 'cli',
      });
    }
  });

  test('a token signed with a rotated-out key still verifies while the key is published', async () => {
    const ctx = server.ctx;
    const chosen = await appWith('ES256');
    const m1 = await mintCode(ctx, chosen, { scopes: ['openid'] });
    const first = await exchange(m1, chosen);
    const r = await rotateManually(ctx, { immediate: true });
    const m2 = await mintCode(ctx, chosen, { scopes: ['openid'], personId: m1.personId });
    const second = await exchange(m2, chosen);
    expect(decodeProtectedHeader(second.id_token).kid).toBe(r.active.ES256);
    expect(decodeProtectedHeader(first.id_token).kid).not.toBe(r.active.ES256);
    const set = createLocalJWKSet(await jwks());
    for (const t of [first, second])
      await jwtVerify(t.id_token, set, { algorithms: ['ES256'], currentDate: ctx.clock.now() });
  });
});
