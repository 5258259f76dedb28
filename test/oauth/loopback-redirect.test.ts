import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { checkRedirectUris } from '../../src/apps/redirect-uri-rules.ts';
import { createTestApp, type TestApp } from '../helpers/apps.ts';
import { type TestContext, testContext } from '../helpers/context.ts';
import { basic, inProcess, mintCode, pkcePair, tokenRequest } from './fixtures.ts';

/** RFC 8252 §7.3: a registered loopback IP literal matches on any port; nothing else about it varies. */

const V4 = 'http://127.0.0.1/cb';
const V6 = 'http://[::1]/cb';
const V4_WITH_PORT = 'http://127.0.0.1:8400/oauth?app=1';
const LOCALHOST = 'http://localhost/cb';

let ctx: TestContext;
let request: ReturnType<typeof inProcess>;
let app: TestApp;
let challenge: string;

beforeEach(async () => {
  ctx = await testContext({ extra: '[rate_limits.oauth]\nrequests = 10000' });
  request = inProcess(ctx);
  const redirectUris = checkRedirectUris([V4, V6, V4_WITH_PORT, LOCALHOST]);
  app = await createTestApp(ctx, { type: 'public', redirectUris, scopes: 'openid profile' });
  challenge = (await pkcePair()).challenge;
});
afterEach(() => ctx.cleanup());

function authorize(redirectUri: string, client: TestApp = app) {
  const p = new URLSearchParams({
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: redirectUri,
    scope: 'openid',
    state: 'st',
    nonce: 'n',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  return request(`/v1/oauth/authorize?${p}`);
}

/** The redirect URI the stored request will send the browser back to, or undefined if refused. */
async function accepted(redirectUri: string, client?: TestApp): Promise<string | undefined> {
  const res = await authorize(redirectUri, client);
  if (res.status === 400) {
    expect(res.headers.get('location')).toBeNull();
    return undefined;
  }
  expect(res.status).toBe(303);
  const id = new URL(res.headers.get('location')!).pathname.split('/').at(-1)!;
  return ctx.db.sql
    .prepare<{ redirect_uri: string }>('SELECT redirect_uri FROM authorization_requests WHERE id = ?')
    .get(id)!.redirect_uri;
}

describe('authorize', () => {
  const ports: [string, string][] = [
    ['IPv4, a port where none was registered', 'http://127.0.0.1:51234/cb'],
    ['IPv4, no port', V4],
    ['IPv4, port 65535', 'http://127.0.0.1:65535/cb'],
    ['IPv6, a port', 'http://[::1]:40000/cb'],
    ['another port than the registered one, same path and query', 'http://127.0.0.1:1/oauth?app=1'],
    ['the registered port left out', 'http://127.0.0.1/oauth?app=1'],
  ];
  for (const [name, uri] of ports)
    test(`accepts ${name}, and keeps the port asked for`, async () => {
      expect(await accepted(uri)).toBe(uri);
    });

  const refused: [string, string][] = [
    ['localhost on another port (exact match only)', 'http://localhost:51234/cb'],
    ['another loopback address', 'http://127.0.0.2:51234/cb'],
    ['IPv4 registered, IPv6 asked', 'http://[::1]:51234/oauth?app=1'],
    ['a host that starts with the literal', 'http://127.0.0.1.evil.example:51234/cb'],
    ['a host that starts with the literal, no port', 'http://127.0.0.1.evil.example/cb'],
    ['userinfo before the literal', 'http://evil.example@127.0.0.1:51234/cb'],
    ['userinfo after the literal', 'http://127.0.0.1:51234@evil.example/cb'],
    ['a backslash', 'http://127.0.0.1:51234\\@evil.example/cb'],
    ['https', 'https://127.0.0.1:51234/cb'],
    ['upper-case scheme', 'HTTP://127.0.0.1:51234/cb'],
    ['another path', 'http://127.0.0.1:51234/cb/evil'],
    ['a trailing slash', 'http://127.0.0.1:51234/cb/'],
    ['a path prefix', 'http://127.0.0.1:51234/c'],
    ['an extra query', 'http://127.0.0.1:51234/cb?next=/admin'],
    ['another query', 'http://127.0.0.1:51234/oauth?app=2'],
    ['the query left out', 'http://127.0.0.1:51234/oauth'],
    ['a fragment', 'http://127.0.0.1:51234/cb#x'],
    ['an empty port', 'http://127.0.0.1:/cb'],
    ['port 0', 'http://127.0.0.1:0/cb'],
    ['a port with a leading zero', 'http://127.0.0.1:051234/cb'],
    ['a port over 65535', 'http://127.0.0.1:65536/cb'],
    ['a percent-encoded path', 'http://127.0.0.1:51234/%63b'],
    ['a shortened IPv4 literal', 'http://127.1:51234/cb'],
    ['an expanded IPv6 literal', 'http://[0:0:0:0:0:0:0:1]:51234/cb'],
  ];
  for (const [name, uri] of refused)
    test(`refuses ${name}, with a page`, async () => {
      expect(await accepted(uri)).toBeUndefined();
    });

  test('the port is free only where a loopback IP literal was registered', async () => {
    const web = await createTestApp(ctx, {
      type: 'confidential',
      redirectUris: ['https://app.example/cb', 'http://localhost:3000/cb'],
      scopes: 'openid',
    });
    expect(await accepted('https://app.example:8443/cb', web)).toBeUndefined();
    expect(await accepted('http://localhost:3001/cb', web)).toBeUndefined();
    expect(await accepted('http://localhost:3000/cb', web)).toBe('http://localhost:3000/cb');
  });

  test('production accepts loopback literals on any port too', async () => {
    const prod = await createTestApp(ctx, {
      type: 'public',
      redirectUris: [V4],
      scopes: 'openid',
      environment: 'production',
      applicationId: app.applicationId,
    });
    expect(await accepted('http://127.0.0.1:49152/cb', prod)).toBe('http://127.0.0.1:49152/cb');
  });
});

describe('token', () => {
  const exchange = (code: string, redirectUri: string, verifier: string) =>
    request(
      '/v1/oauth/token',
      tokenRequest({
        grant_type: 'authorization_code',
        code,
        redirect_uri: redirectUri,
        client_id: app.clientId,
        code_verifier: verifier,
      }),
    );

  test('the redirect_uri must be the one used at authorize, port included', async () => {
    const used = 'http://127.0.0.1:51234/cb';
    const ok = await mintCode(ctx, app, { redirectUri: used, scopes: ['openid'] });
    expect(`${ok.callback.origin}${ok.callback.pathname}`).toBe(used);
    const res = await exchange(ok.code, used, ok.verifier!);
    expect(res.status).toBe(200);

    for (const other of [V4, 'http://127.0.0.1:51235/cb']) {
      const m = await mintCode(ctx, app, { redirectUri: used, scopes: ['openid'] });
      const refused = await exchange(m.code, other, m.verifier!);
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as { error: string }).error).toBe('invalid_grant');
    }
  });

  test('a confidential client with a loopback literal exchanges on its port as well', async () => {
    const backend = await createTestApp(ctx, { type: 'confidential', redirectUris: [V6], scopes: 'openid' });
    const used = 'http://[::1]:8765/cb';
    const m = await mintCode(ctx, backend, { redirectUri: used, scopes: ['openid'] });
    const res = await request(
      '/v1/oauth/token',
      tokenRequest(
        { grant_type: 'authorization_code', code: m.code, redirect_uri: used, code_verifier: m.verifier! },
        { auth: basic(backend.clientId, backend.clientSecret!) },
      ),
    );
    expect(res.status).toBe(200);
  });
});
