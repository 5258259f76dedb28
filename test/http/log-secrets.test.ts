import { afterEach, expect, setDefaultTimeout, test } from 'bun:test';
import { parseConfig } from '../../src/config/load.ts';
import { findDeveloperByEmail, markEmailVerified } from '../../src/developer/developer.store.ts';
import { jsonLogger } from '../../src/log.ts';
import { fixedClock } from '../../src/platform/clock.ts';
import { type RunningServer, startServer } from '../../src/server.ts';
import { dispatchDue } from '../../src/webhooks/dispatcher.ts';
import { P, PASSWORD, page, submit, submitPage, submitSignUp } from '../developer/portal-helpers.ts';
import { tempDir, testToml } from '../helpers/context.ts';
import { freePort } from '../helpers/server.ts';
import { httpBrowser, location, open, pkcePair } from '../identity/flow-helpers.ts';
import { type Receiver, receiver } from '../webhooks/fixtures.ts';

// Argon2id hashes for the developer account.
setDefaultTimeout(40_000);

let server: RunningServer | undefined;
let rx: Receiver | undefined;
let cleanupDir = () => {};
afterEach(async () => {
  await server?.stop();
  await rx?.stop();
  cleanupDir();
});

test('a real server logging at debug level writes no secret, token, code, password or cookie value', async () => {
  const lines: string[] = [];
  const { dir, cleanup } = tempDir('verity-log');
  cleanupDir = cleanup;
  const port = await freePort();
  const base = `http://localhost:${port}`;
  const toml = `${testToml(dir, '[developer]\nsignup = "open"\n[identity]\nsignin_attempts_per_account = 2\n[webhooks]\nallow_localhost_in_sandbox = true\n[rate_limits.oauth]\nrequests = 1000')}\n[server]\nlisten = "127.0.0.1:${port}"\nbase_url = "${base}"\n`;
  server = await startServer(parseConfig(toml), {
    clock: fixedClock(Date.UTC(2026, 5, 1, 12)),
    log: jsonLogger('debug', (l) => lines.push(l)),
    jobs: false,
  });
  rx = receiver();
  // The test's browser over real sockets.
  const dev = httpBrowser(base, '127.0.0.1');
  const secrets: Record<string, string> = {};
  const keep = (name: string, value: string | undefined) => {
    expect({ name, value: (value ?? '').length > 8 }).toEqual({ name, value: true });
    secrets[name] = value!;
  };

  // Portal: sign up, a wrong and a right password, an application (client secret) and an API key.
  const signup = await submitSignUp(dev, 'alice@example.com', { name: 'Alice' });
  expect(signup.status).toBe(303);
  // Production review needs a verified address; the link itself is the email-links tests' subject.
  markEmailVerified(
    server.ctx.db,
    server.ctx.clock,
    findDeveloperByEmail(server.ctx.db, 'alice@example.com')!.developerId,
  );
  keep('portal cookie', dev.cookies.get('__Host-verity_dev'));
  keep('portal csrf', (await page(dev, `${P}/apps`)).csrf);
  expect((await submit(dev, `${P}/apps`, `${P}/signout`, {})).status).toBe(303);
  const wrongPassword = { email: 'alice@example.com', password: 'Wrong-Password-42' };
  expect((await submit(dev, `${P}/signin`, `${P}/signin`, wrongPassword)).status).toBe(401);
  const rightPassword = { email: 'alice@example.com', password: PASSWORD };
  expect((await submit(dev, `${P}/signin`, `${P}/signin`, rightPassword)).status).toBe(303);
  // Someone guessing at an account that does not exist, until throttled.
  const stranger = httpBrowser(base, '127.0.0.1');
  const guess = { email: 'mallory@example.com', password: 'Guess-Number-One' };
  for (const status of [401, 401, 429])
    expect((await submit(stranger, `${P}/signin`, `${P}/signin`, guess)).status).toBe(status);
  const { html: created } = await submitPage(dev, `${P}/apps/new`, `${P}/apps`, {
    name: 'Log Shop',
    type: 'confidential',
    redirect_uris: 'https://rp.example/callback',
    scopes: ['openid', 'profile', 'email'],
    document_types: ['passport'],
    document_countries: 'all',
  });
  keep('client secret', /(cs_test_[\w-]+)/.exec(created)?.[1]);
  const clientId = /(cid_test_[\w-]+)/.exec(created)![1]!;
  const applicationId = /\/apps\/(app_[\w-]+)/.exec(created)![1]!;
  const { html: keyPage } = await submitPage(dev, `${P}/keys`, `${P}/keys`, {
    label: 'ci',
    environment: 'sandbox',
  });
  keep('api key', /(dk_test_[\w-]+)/.exec(keyPage)?.[1]);
  const review = await submit(dev, `${P}/apps/${applicationId}/review`, `${P}/apps/${applicationId}/review`, {
    justification: 'We verify our customers.',
    scopes: ['openid', 'profile'],
  });
  expect(review.status).toBe(303);

  // Developer API: a webhook endpoint (signing secret), a test event delivered, a rotation.
  const api = (method: string, path: string, body?: unknown) =>
    fetch(`${base}/v1/developer/applications/${applicationId}/webhooks${path}`, {
      method,
      headers: { authorization: `Bearer ${secrets['api key']}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).then(async (r) => ({ status: r.status, json: (await r.json()) as any }));
  const hook = await api('POST', '', { url: rx.url, events: ['webhook.test', 'consent.granted'] });
  expect(hook.status).toBe(201);
  keep('webhook secret', hook.json.data.secret);
  expect((await api('POST', `/${hook.json.data.id}/test`)).status).toBe(202);
  const rotated = await api('POST', `/${hook.json.data.id}/rotate-secret`, { expireCurrentInSeconds: 0 });
  keep('rotated webhook secret', rotated.json.data.secret);
  await dispatchDue(server.ctx);
  expect(rx.received.length).toBeGreaterThan(0);
  keep('webhook signature', rx.received[0]!.headers['service-signature']);

  // A person through the sandbox flow, the code exchanged, UserInfo read, the code replayed.
  const person = httpBrowser(base, '127.0.0.1');
  const { verifier, challenge } = pkcePair();
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: 'https://rp.example/callback',
    scope: 'openid profile email',
    state: 'st',
    nonce: 'nn',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    purpose: 'Logging test',
  });
  const path = new URL(location(await person.get(`/v1/oauth/authorize?${q}`)), base).pathname;
  const step = async (at: string, fields: Record<string, string>) =>
    person.post(`${path}${at}`, {
      csrf_token: (await open(person, `${path}${at === '/signin' ? '' : at}`)).csrf,
      ...fields,
    });
  keep('identity csrf', (await open(person, path)).csrf);
  await step('/signin', { persona: 'ada', outcome: 'none' });
  keep('identity cookie', person.cookies.get('__Host-verity_session'));
  await step('/face', { outcome: 'pass' });
  const callback = new URL(location(await step('/consent', { decision: 'allow' })));
  keep('code', callback.searchParams.get('code') ?? undefined);
  keep('pkce verifier', verifier);
  const basic = btoa(`${clientId}:${secrets['client secret']}`);
  const exchange = () =>
    fetch(`${base}/v1/oauth/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: secrets.code!,
        redirect_uri: 'https://rp.example/callback',
        code_verifier: verifier,
      }),
    }).then(async (r) => ({ status: r.status, json: (await r.json()) as any }));
  const tokens = await exchange();
  expect(tokens.status).toBe(200);
  keep('access token', tokens.json.access_token);
  keep('id token', tokens.json.id_token);
  const info = await fetch(`${base}/v1/userinfo`, {
    headers: { authorization: `Bearer ${secrets['access token']}` },
  });
  expect(info.status).toBe(200);
  // Failures log too: a replayed code, a wrong secret, a revoked token.
  expect((await exchange()).status).toBe(400);
  const wrong = await fetch(`${base}/v1/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: secrets.code!,
      client_id: clientId,
      client_secret: `${secrets['client secret']}x`,
      redirect_uri: 'https://rp.example/callback',
      code_verifier: verifier,
    }),
  });
  expect(wrong.status).toBe(401);
  // A client that sends its secret as its id: refused, and the secret is not logged as an id.
  const swapped = await fetch(`${base}/v1/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: 'x',
      client_id: secrets['client secret']!,
      client_secret: clientId,
    }),
  });
  expect(swapped.status).toBe(401);
  expect(
    (await fetch(`${base}/v1/userinfo`, { headers: { authorization: `Bearer ${secrets['access token']}` } }))
      .status,
  ).toBe(401);
  // The person revokes the consent from the account page.
  const account = await open(person, '/identity/account');
  const consentId = /\/consents\/(cns_[\w-]+)\/revoke/.exec(account.html)![1]!;
  expect(
    (await person.post(`/identity/account/consents/${consentId}/revoke`, { csrf_token: account.csrf }))
      .status,
  ).toBe(303);

  const log = lines.join('\n');
  expect(lines.length).toBeGreaterThan(20);
  // The security events of the flow, one line each, in order.
  const events = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'security event');
  expect(events.map((e) => [e.event, e.reason ?? e.error ?? e.method])).toEqual([
    ['developer.signed_up', 'open'],
    ['signin.failed', 'wrong_password'],
    ['signin.succeeded', 'password'],
    ['signin.failed', 'unknown_account'],
    ['signin.failed', 'unknown_account'],
    ['signin.throttled', 'password'],
    ['developer.key_created', undefined],
    ['review.requested', undefined],
    ['signin.succeeded', 'sandbox'],
    ['face.passed', undefined],
    ['consent.granted', undefined],
    ['code.issued', undefined],
    ['token.issued', undefined],
    ['token.refused', 'invalid_grant'],
    ['token.refused', 'invalid_client'],
    ['token.refused', 'invalid_client'],
    ['consent.revoked', 'revoked_by_person'],
  ]);
  for (const e of events) expect(e).toMatchObject({ level: 'info', requestId: expect.any(String) });
  // Ids, never the email of an unknown account.
  expect(events[1]).toMatchObject({ surface: 'portal', developerId: expect.stringMatching(/^dev_/) });
  expect(events[3]).not.toHaveProperty('developerId');
  expect(events.filter((e) => e.event.startsWith('token.')).map((e) => e.clientId)).toEqual([
    clientId,
    clientId,
    clientId,
    undefined,
  ]);
  expect(events[12]).toMatchObject({ applicationId, personId: 'psn_sandbox_ada' });
  const metrics = await (await fetch(`${base}/metrics`)).text();
  expect(metrics).toContain('verity_security_events_total{event="signin.failed"} 3');
  expect(metrics).toContain('verity_security_events_total{event="token.refused"} 3');
  expect(metrics).toContain('verity_security_events_total{event="review.approved"} 0');
  for (const [name, value] of Object.entries({
    ...secrets,
    password: PASSWORD,
    'wrong password': 'Wrong-Password-42',
  }))
    expect({ name, logged: log.includes(value) }).toEqual({ name, logged: false });
  // Nothing that looks like a credential of any kind, whoever it belongs to.
  for (const shape of [
    /cs_(test|live)_\w/,
    /dk_(test|live)_\w/,
    /whsec_\w/,
    /\bat_[\w-]{20}/,
    /eyJ[\w-]{10,}\./,
  ])
    expect({ shape: String(shape), found: shape.exec(log)?.[0] }).toEqual({
      shape: String(shape),
      found: undefined,
    });
});
