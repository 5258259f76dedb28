import { afterAll, beforeAll, expect, test } from 'bun:test';
import { SCOPES } from '../../src/capabilities/scopes.ts';
import { parseConfig } from '../../src/config/load.ts';
import { discoveryDocument } from '../../src/oidc/discovery.ts';
import { CHECK_METHODS } from '../../src/persons/check-methods.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

test('the OpenID configuration states exactly what Verity supports', async () => {
  const res = await fetch(`${server.url}/.well-known/openid-configuration`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('application/json');
  expect(res.headers.get('cache-control')).toBe('public, max-age=300');
  // Served by the listener ahead of the app, with the headers the app's routes send.
  expect(res.headers.get('access-control-allow-origin')).toBe('*');
  expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  const doc = (await res.json()) as Record<string, unknown>;
  const base = server.ctx.config.server.base_url;
  expect(doc).toMatchObject({
    issuer: base,
    authorization_endpoint: `${base}/v1/oauth/authorize`,
    token_endpoint: `${base}/v1/oauth/token`,
    revocation_endpoint: `${base}/v1/oauth/revoke`,
    userinfo_endpoint: `${base}/v1/userinfo`,
    jwks_uri: `${base}/.well-known/jwks.json`,
    end_session_endpoint: `${server.ctx.config.server.identity_url}/logout`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code'],
    subject_types_supported: ['pairwise'],
    id_token_signing_alg_values_supported: ['RS256', 'ES256', 'EdDSA'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    code_challenge_methods_supported: ['S256'],
    prompt_values_supported: ['none', 'login', 'consent'],
    display_values_supported: ['page', 'popup'],
    request_parameter_supported: false,
    request_uri_parameter_supported: false,
    claims_parameter_supported: true,
    authorization_response_iss_parameter_supported: true,
  });
  expect(doc.scopes_supported).toEqual([...SCOPES]);
  expect((doc.scopes_supported as string[]).length).toBe(26);
  const claims = doc.claims_supported as string[];
  for (const c of [
    'sub',
    'iss',
    'auth_time',
    'acr',
    'amr',
    'name',
    'email',
    'birthdate',
    'age_over_18',
    'document',
    'verified_claims',
  ]) {
    expect(claims).toContain(c);
  }
  expect(new Set(claims).size).toBe(claims.length);
});

test('identity assurance metadata (OIDC4IDA §8): the sandbox framework, document evidence, verified claims', async () => {
  const doc = (await (await fetch(`${server.url}/.well-known/openid-configuration`)).json()) as Record<
    string,
    unknown
  >;
  expect(doc).toMatchObject({
    verified_claims_supported: true,
    trust_frameworks_supported: ['verity_sandbox'],
    evidence_supported: ['document'],
    documents_supported: ['passport', 'idcard', 'driving_permit', 'residence_permit'],
    claims_in_verified_claims_supported: ['given_name', 'family_name', 'birthdate', 'nationalities'],
  });
  // Every check method a document can carry: exactly the registered values import accepts.
  expect(doc.documents_check_methods_supported).toEqual([...CHECK_METHODS]);
  expect(doc.documents_check_methods_supported).toEqual(
    expect.arrayContaining(['vpip', 'vri', 'vcrypt', 'data']),
  );
});

test('a configured production framework is published beside the sandbox one; none at all, nothing', () => {
  const withFramework = parseConfig('[assurance]\ntrust_framework = "de_aml"\n');
  expect(discoveryDocument(withFramework).trust_frameworks_supported).toEqual(['verity_sandbox', 'de_aml']);
  const productionOnly = parseConfig(
    '[identity]\nsandbox = false\n[assurance]\ntrust_framework = "de_aml"\n',
  );
  expect(discoveryDocument(productionOnly).trust_frameworks_supported).toEqual(['de_aml']);
  const none = discoveryDocument(parseConfig('[identity]\nsandbox = false\n'));
  for (const key of [
    'verified_claims_supported',
    'trust_frameworks_supported',
    'evidence_supported',
    'documents_check_methods_supported',
  ])
    expect(key in none).toBe(false);
  expect(none.claims_parameter_supported).toBe(true);
});

test('the RFC 8414 document is the same', async () => {
  const a = await (await fetch(`${server.url}/.well-known/openid-configuration`)).text();
  const b = await (await fetch(`${server.url}/.well-known/oauth-authorization-server`)).text();
  expect(b).toBe(a);
});

test('every endpoint it names is served', async () => {
  const doc = (await (await fetch(`${server.url}/.well-known/openid-configuration`)).json()) as Record<
    string,
    string
  >;
  const local = (u: string) => u.replace(server.ctx.config.server.base_url, server.url);
  const jwks = (await (await fetch(local(doc.jwks_uri!))).json()) as { keys: { kid: string }[] };
  expect(jwks.keys.length).toBeGreaterThan(0);
  const token = await fetch(local(doc.token_endpoint!), { method: 'POST' });
  expect(token.status).toBe(400);
  const revoke = await fetch(local(doc.revocation_endpoint!), { method: 'POST' });
  expect(revoke.status).toBe(400);
  const authorize = await fetch(local(doc.authorization_endpoint!), { redirect: 'manual' });
  expect(authorize.status).toBe(400);
});
