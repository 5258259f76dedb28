import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { z } from 'zod';
import { createBody, historyQuery, rotateBody, updateBody } from '../../src/api/webhooks.router.ts';
import { createApp } from '../../src/app.ts';
import { countryCode, documentType } from '../../src/capabilities/capabilities.router.ts';
import { API_ROUTES } from '../../src/openapi/document.ts';
import { TokenRequest } from '../../src/openapi/oauth.ts';
import { createTestApp, type TestApp } from '../helpers/apps.ts';
import { type TestContext, testContext } from '../helpers/context.ts';
import { basic, inProcess, mintCode, REDIRECT, tokenRequest } from '../oauth/fixtures.ts';
import { setDocumentPolicy } from '../userinfo/fixtures.ts';
import { owner } from '../webhooks/fixtures.ts';
import { validate } from './json-schema.ts';

type Doc = Record<string, any>;

let ctx: TestContext;
let request: ReturnType<typeof inProcess>;
let doc: Doc;
let served: Response;

beforeAll(async () => {
  ctx = await testContext({ extra: '[webhooks]\nallow_localhost_in_sandbox = true' });
  request = inProcess(ctx);
  served = await request('/openapi.json');
  doc = (await served.clone().json()) as Doc;
});
afterAll(() => ctx.cleanup());

/** The interface's Endpoints summary (all 15), in OpenAPI path syntax. */
const INTERFACE_ROUTES = [
  'GET /v1/oauth/authorize',
  'POST /v1/oauth/token',
  'GET /.well-known/openid-configuration',
  'GET /.well-known/jwks.json',
  'GET /v1/userinfo',
  'GET /v1/userinfo/identity-documents',
  'GET /v1/userinfo/identity-documents/{documentReference}',
  'GET /v1/capabilities/scopes',
  'GET /v1/capabilities/countries',
  'GET /v1/capabilities/countries/{countryCode}',
  'GET /v1/capabilities/countries/{countryCode}/document-types/{documentType}',
  'POST /v1/developer/applications/{applicationId}/webhooks',
  'POST /v1/developer/applications/{applicationId}/webhooks/{endpointId}/test',
  'POST /v1/developer/applications/{applicationId}/webhooks/{endpointId}/rotate-secret',
  'GET /v1/developer/applications/{applicationId}/webhooks/deliveries/history',
];

/** DESIGN.md §5 and §10: the RFC 8414 metadata path, revocation and the further webhook routes. */
const DESIGN_ROUTES = [
  'GET /.well-known/oauth-authorization-server',
  'POST /v1/oauth/revoke',
  'GET /v1/developer/applications/{applicationId}/webhooks',
  'GET /v1/developer/applications/{applicationId}/webhooks/{endpointId}',
  'PATCH /v1/developer/applications/{applicationId}/webhooks/{endpointId}',
  'DELETE /v1/developer/applications/{applicationId}/webhooks/{endpointId}',
  'POST /v1/developer/applications/{applicationId}/webhooks/events/{eventId}/redeliver',
];

const documented = () =>
  Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) =>
    Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`),
  );

const op = (method: string, path: string) => doc.paths[path]?.[method.toLowerCase()];

/** The schema the document gives a response, resolved to its JSON body. */
function responseSchema(method: string, path: string, status: number) {
  const res = op(method, path)?.responses?.[String(status)];
  if (!res) throw new Error(`${method} ${path} documents no ${status} response`);
  const schema = res.content?.['application/json']?.schema;
  if (!schema) throw new Error(`${method} ${path} ${status} has no JSON body`);
  return schema;
}

/** Asserts a real response is documented: its status, its body by the document's schema, its headers. */
async function conforms(res: Response, method: string, path: string, opts: { strict?: boolean } = {}) {
  const body = await res.json();
  const problems = validate(doc, responseSchema(method, path, res.status), body, {
    strict: opts.strict ?? true,
  });
  expect({ route: `${method} ${path} ${res.status}`, problems }).toEqual({
    route: `${method} ${path} ${res.status}`,
    problems: [],
  });
  const declared = Object.keys(op(method, path).responses[String(res.status)].headers ?? {});
  for (const h of declared.filter((h) => h.startsWith('X-RateLimit') || h === 'WWW-Authenticate'))
    expect({ header: h, present: res.headers.has(h) }).toEqual({ header: h, present: true });
  return body;
}

describe('the document', () => {
  test('is served at /openapi.json as JSON, cacheable for five minutes', () => {
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toStartWith('application/json');
    expect(served.headers.get('cache-control')).toBe('public, max-age=300');
  });

  test('is OpenAPI 3.1 in shape, with the configured base URL as its server', () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(typeof doc.info.title).toBe('string');
    expect(typeof doc.info.version).toBe('string');
    expect(doc.servers).toEqual([{ url: ctx.config.server.base_url }]);
    expect(Object.keys(doc.paths).length).toBeGreaterThan(0);
    expect(Object.keys(doc.components.schemas).length).toBeGreaterThan(0);
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      expect(path).toStartWith('/');
      expect(path).not.toContain(':');
      for (const [method, operation] of Object.entries(item)) {
        expect(['get', 'post', 'put', 'patch', 'delete']).toContain(method);
        expect(Object.keys(operation.responses).length).toBeGreaterThan(0);
        for (const [status, res] of Object.entries(operation.responses as Record<string, any>)) {
          expect(status).toMatch(/^[1-5](\d\d|XX)$/);
          expect(typeof res.description).toBe('string');
        }
        // Every {param} of the path is declared as a required path parameter, and nothing else is.
        const inPath = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
        const declared = (operation.parameters ?? []).filter((p: any) => p.in === 'path');
        expect(declared.map((p: any) => p.name).sort()).toEqual(inPath.sort());
        for (const p of declared) expect(p.required).toBe(true);
      }
    }
    const ids = documented().map((r) => {
      const [m, p] = r.split(' ');
      return op(m!, p!).operationId;
    });
    expect(new Set(ids).size).toBe(ids.length);
  });

  test('every $ref resolves', () => {
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of new Set(refs)) {
      let target: any = doc;
      for (const part of ref.replace(/^#\//, '').split('/')) target = target?.[part];
      expect({ ref, resolves: target !== undefined }).toEqual({ ref, resolves: true });
    }
  });

  test("has every route of the interface's endpoint table and of DESIGN.md's additions", () => {
    const routes = documented();
    for (const r of [...INTERFACE_ROUTES, ...DESIGN_ROUTES]) expect(routes).toContain(r);
  });

  test('describes the error shapes and the security schemes', () => {
    const schemes = doc.components.securitySchemes;
    expect(schemes.clientSecretBasic).toMatchObject({ type: 'http', scheme: 'basic' });
    expect(schemes.accessToken).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(schemes.developerApiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(op('POST', '/v1/oauth/token').security).toContainEqual({ clientSecretBasic: [] });
    expect(op('GET', '/v1/userinfo').security).toEqual([{ accessToken: [] }]);
    expect(op('GET', '/v1/userinfo/identity-documents').security).toEqual([{ accessToken: [] }]);
    expect(op('POST', '/v1/developer/applications/{applicationId}/webhooks').security).toEqual([
      { developerApiKey: [] },
    ]);

    const apiError = doc.components.schemas.ApiError;
    expect(apiError.required).toEqual(['error']);
    expect(apiError.properties.error.required).toEqual(['code', 'message', 'requestId']);
    const tokenError = doc.components.schemas.TokenError;
    expect(tokenError.required).toEqual(['error', 'error_description']);
    expect(responseSchema('POST', '/v1/oauth/token', 401)).toEqual({
      $ref: '#/components/schemas/TokenError',
    });
    expect(responseSchema('GET', '/v1/userinfo', 401)).toEqual({ $ref: '#/components/schemas/ApiError' });
    expect(responseSchema('GET', '/v1/userinfo/identity-documents/{documentReference}', 404)).toEqual({
      $ref: '#/components/schemas/ApiError',
    });
    expect(Object.keys(doc.webhooks).sort()).toEqual(
      [
        'claim_access.completed',
        'consent.granted',
        'consent.revoked',
        'oauth.authorization.completed',
        'token.revoked',
        'webhook.test',
      ].sort(),
    );
  });
});

describe('the document and the server agree', () => {
  /** Hono's route table of the API surface (not the HTML surfaces, not middleware). */
  function serverRoutes(): string[] {
    const app = createApp(ctx);
    const identity = new URL(ctx.config.server.identity_url).pathname;
    const developer = new URL(ctx.config.server.developer_url).pathname;
    return [
      ...new Set(
        app.routes
          // CORS preflights answer for their route (docs/reference.md, "CORS"): not operations.
          .filter((r) => r.method !== 'ALL' && r.method !== 'OPTIONS' && !r.path.includes('*'))
          .filter((r) => !r.path.startsWith(identity) && !r.path.startsWith(developer))
          .map((r) => `${r.method} ${r.path.replace(/:([A-Za-z]+)/g, '{$1}')}`),
      ),
    ];
  }

  test('every documented operation is a route of the server', () => {
    const routes = serverRoutes();
    for (const r of documented()) expect(routes).toContain(r);
  });

  test('every route of the server is documented', () => {
    const routes = documented();
    for (const r of serverRoutes()) expect(routes).toContain(r);
  });

  test('request schemas are the very zod schemas the routers validate with', () => {
    const find = (method: string, path: string) =>
      API_ROUTES.find((r) => r.method === method && r.path === path)!;
    const webhooks = '/v1/developer/applications/{applicationId}/webhooks';
    expect(find('post', webhooks).body!.schema).toBe(createBody);
    expect(find('patch', `${webhooks}/{endpointId}`).body!.schema).toBe(updateBody);
    expect(find('post', `${webhooks}/{endpointId}/rotate-secret`).body!.schema).toBe(rotateBody);
    expect(find('get', `${webhooks}/deliveries/history`).query).toBe(historyQuery);
    const pair = find('get', '/v1/capabilities/countries/{countryCode}/document-types/{documentType}');
    expect(pair.params!._zod.def.shape.countryCode).toBe(countryCode);
    expect(pair.params!._zod.def.shape.documentType).toBe(documentType);
  });

  test("a field the router's schema requires is required in the document, an optional one is not", () => {
    const body = op('POST', '/v1/developer/applications/{applicationId}/webhooks').requestBody;
    expect(body.required).toBe(true);
    const schema = body.content['application/json'].schema;
    const { $schema: _, ...fromZod } = JSON.parse(
      JSON.stringify(z.toJSONSchema(createBody, { io: 'input' })),
    );
    expect(schema).toEqual(fromZod);
    expect(schema.required.sort()).toEqual(['events', 'url']);
    expect(Object.keys(schema.properties)).toContain('description');
    expect(schema.required).not.toContain('description');

    const history = op('GET', '/v1/developer/applications/{applicationId}/webhooks/deliveries/history');
    const limit = history.parameters.find((p: any) => p.name === 'limit');
    expect(limit).toMatchObject({ in: 'query', required: false, schema: { type: 'string' } });
    expect(limit.schema.pattern).toBeDefined();
  });

  test('the token request is documented for both encodings the endpoint accepts', () => {
    const body = op('POST', '/v1/oauth/token').requestBody;
    expect(Object.keys(body.content).sort()).toEqual([
      'application/json',
      'application/x-www-form-urlencoded',
    ]);
    const tokenRequest = doc.components.schemas.TokenRequest;
    expect(tokenRequest.required.sort()).toEqual(['client_id', 'code', 'grant_type', 'redirect_uri']);
    expect(TokenRequest.safeParse({ grant_type: 'authorization_code' }).success).toBe(false);
  });
});

describe('real responses match the document', () => {
  test('the checker itself notices a wrong type, a missing field and an undeclared one', () => {
    const schema = { $ref: '#/components/schemas/TokenResponse' };
    const good = { access_token: 'at_x', token_type: 'Bearer', expires_in: 900, scope: 'openid' };
    expect(validate(doc, schema, good)).toEqual([]);
    expect(validate(doc, schema, { ...good, expires_in: '900' })).not.toEqual([]);
    const { scope: _, ...missing } = good;
    expect(validate(doc, schema, missing)).not.toEqual([]);
    expect(validate(doc, schema, { ...good, refresh_token: 'r' }, { strict: true })).not.toEqual([]);
  });

  test('discovery, keys, capabilities and operations', async () => {
    await conforms(
      await request('/.well-known/openid-configuration'),
      'GET',
      '/.well-known/openid-configuration',
      {
        strict: true,
      },
    );
    await conforms(
      await request('/.well-known/oauth-authorization-server'),
      'GET',
      '/.well-known/oauth-authorization-server',
    );
    await conforms(await request('/.well-known/jwks.json'), 'GET', '/.well-known/jwks.json');
    await conforms(await request('/v1/capabilities/scopes'), 'GET', '/v1/capabilities/scopes');
    const countries = await conforms(
      await request('/v1/capabilities/countries'),
      'GET',
      '/v1/capabilities/countries',
    );
    const cc = countries.data.countries[0].code as string;
    const country = await conforms(
      await request(`/v1/capabilities/countries/${cc}`),
      'GET',
      '/v1/capabilities/countries/{countryCode}',
    );
    const pairPath = '/v1/capabilities/countries/{countryCode}/document-types/{documentType}';
    await conforms(
      await request(`/v1/capabilities/countries/${cc}/document-types/${country.data.documentTypes[0].type}`),
      'GET',
      pairPath,
    );
    await conforms(
      await request('/v1/capabilities/countries/XX'),
      'GET',
      '/v1/capabilities/countries/{countryCode}',
    );
    await conforms(await request(`/v1/capabilities/countries/${cc}/document-types/nope`), 'GET', pairPath);
    await conforms(await request('/healthz'), 'GET', '/healthz');
    await conforms(await request('/readyz'), 'GET', '/readyz');
  });

  test('token endpoint: success and both documented error statuses', async () => {
    const app = await createTestApp(ctx, {
      type: 'confidential',
      redirectUris: [REDIRECT],
      scopes: 'openid profile email',
    });
    const minted = await mintCode(ctx, app, { scopes: ['openid', 'profile', 'email'] });
    const body = {
      grant_type: 'authorization_code',
      code: minted.code,
      redirect_uri: REDIRECT,
      client_id: app.clientId,
      code_verifier: minted.verifier!,
    };
    const auth = basic(app.clientId, app.clientSecret!);
    const ok = await conforms(
      await request('/v1/oauth/token', tokenRequest(body, { auth })),
      'POST',
      '/v1/oauth/token',
    );
    expect(ok.id_token).toBeString();
    const reused = await request('/v1/oauth/token', tokenRequest(body, { auth, as: 'form' }));
    expect(reused.status).toBe(400);
    await conforms(reused, 'POST', '/v1/oauth/token');
    const wrongSecret = await request(
      '/v1/oauth/token',
      tokenRequest(body, { auth: basic(app.clientId, 'cs_test_x') }),
    );
    expect(wrongSecret.status).toBe(401);
    await conforms(wrongSecret, 'POST', '/v1/oauth/token');
  });

  test('revocation endpoint: an empty 200 and both documented error statuses', async () => {
    const app = await createTestApp(ctx, {
      type: 'confidential',
      redirectUris: [REDIRECT],
      scopes: 'openid',
    });
    const revoke = (body: Record<string, string>, auth = basic(app.clientId, app.clientSecret!)) =>
      request('/v1/oauth/revoke', tokenRequest(body, { auth, as: 'form' }));
    const ok = await revoke({ token: 'at_unknown' });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('');
    const declared = Object.keys(op('POST', '/v1/oauth/revoke').responses['200'].headers);
    for (const h of declared)
      expect({ header: h, present: ok.headers.has(h) }).toEqual({ header: h, present: true });
    const missing = await revoke({});
    expect(missing.status).toBe(400);
    await conforms(missing, 'POST', '/v1/oauth/revoke');
    const wrongSecret = await revoke({ token: 'at_unknown' }, basic(app.clientId, 'cs_test_x'));
    expect(wrongSecret.status).toBe(401);
    await conforms(wrongSecret, 'POST', '/v1/oauth/revoke');
  });

  test('UserInfo and the documents API for a persona with every sandbox scope', async () => {
    const scopes = [
      'openid profile email emails phone phones legal_name age age_over_18 date_of_birth nationality',
      'identity_verified identity_assurance_level liveness_verified face_match_verified profile_photo',
      'profile_photo_verified identity_documents document_type document_issuing_country document_expiry_date',
      'document_validity document_verified document_verified_at document_number_masked',
    ]
      .join(' ')
      .split(' ');
    const app: TestApp = await createTestApp(ctx, { type: 'public', redirectUris: [REDIRECT], scopes });
    setDocumentPolicy(ctx, app, ['passport'], ['DE']);
    const minted = await mintCode(ctx, app, { scopes, personId: 'psn_sandbox_ada' });
    const res = await request(
      '/v1/oauth/token',
      tokenRequest({
        grant_type: 'authorization_code',
        code: minted.code,
        redirect_uri: REDIRECT,
        client_id: app.clientId,
        code_verifier: minted.verifier!,
      }),
    );
    const { access_token } = (await res.json()) as { access_token: string };
    const bearer = { headers: { Authorization: `Bearer ${access_token}` } };

    const claims = await conforms(await request('/v1/userinfo', bearer), 'GET', '/v1/userinfo');
    expect(claims.document).toBeObject();
    const list = await conforms(
      await request('/v1/userinfo/identity-documents', bearer),
      'GET',
      '/v1/userinfo/identity-documents',
    );
    expect(list.data.documents.length).toBeGreaterThan(0);
    const one = '/v1/userinfo/identity-documents/{documentReference}';
    const ref = encodeURIComponent(list.data.documents[0].documentReference);
    await conforms(await request(`/v1/userinfo/identity-documents/${ref}`, bearer), 'GET', one);
    await conforms(await request('/v1/userinfo/identity-documents/unknown', bearer), 'GET', one);
    await conforms(await request('/v1/userinfo'), 'GET', '/v1/userinfo');
  });

  test('the developer webhook API', async () => {
    const o = await owner(ctx);
    const base = `/v1/developer/applications/${o.applicationId}/webhooks`;
    const path = '/v1/developer/applications/{applicationId}/webhooks';
    const auth = { Authorization: `Bearer ${o.sandboxKey}`, 'Content-Type': 'application/json' };
    const post = (url: string, body: unknown) =>
      request(url, { method: 'POST', headers: auth, body: JSON.stringify(body) });

    const created = await conforms(
      await post(base, { url: 'http://localhost:9/hook', events: ['webhook.test', 'consent.granted'] }),
      'POST',
      path,
    );
    const id = created.data.id as string;
    await conforms(await post(base, { events: ['webhook.test'] }), 'POST', path);
    await conforms(await request(base, { headers: auth }), 'GET', path);
    await conforms(await request(`${base}/${id}`, { headers: auth }), 'GET', `${path}/{endpointId}`);
    await conforms(
      await request(`${base}/${id}`, {
        method: 'PATCH',
        headers: auth,
        body: JSON.stringify({ description: 'x' }),
      }),
      'PATCH',
      `${path}/{endpointId}`,
    );
    const sent = await conforms(await post(`${base}/${id}/test`, {}), 'POST', `${path}/{endpointId}/test`);
    await conforms(
      await post(`${base}/${id}/rotate-secret`, { expireCurrentInSeconds: 60 }),
      'POST',
      `${path}/{endpointId}/rotate-secret`,
    );
    await conforms(
      await post(`${base}/events/${sent.data.eventId}/redeliver`, {}),
      'POST',
      `${path}/events/{eventId}/redeliver`,
    );
    await conforms(
      await request(`${base}/deliveries/history`, { headers: auth }),
      'GET',
      `${path}/deliveries/history`,
    );
    await conforms(await request(base), 'GET', path);
    await conforms(await request(`${base}/nope`, { headers: auth }), 'GET', `${path}/{endpointId}`);
    const deleted = await request(`${base}/${id}`, { method: 'DELETE', headers: auth });
    expect(deleted.status).toBe(204);
    expect(op('DELETE', `${path}/{endpointId}`).responses['204']).toBeDefined();
  });
});
