import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { cli } from '../helpers/cli.ts';
import { waitFor } from '../helpers/wait.ts';
import { CALLBACK, type Client, FleetBrowser, locationPath, signInForCode, tokenRequest } from './browser.ts';
import { createClient, type Fleet, startFleet } from './fleet.ts';

/**
 * Three `verity serve` processes on one PostgreSQL database, as behind a load balancer: whatever one
 * instance decides (a redeemed code, a request counted, a changed client, a signed-in session) holds
 * on the others. Each test speaks from addresses of its own (the instances trust X-Forwarded-For), so
 * the default OAuth limit of 30 per 10 minutes applies to each separately.
 */
let fleet: Fleet;
let urls: string[];
let client: Client & { applicationId: string };

beforeAll(async () => {
  fleet = await startFleet(3, { server: 'trust_proxy = "x-forwarded-for"' });
  urls = fleet.urls;
  client = await createClient(fleet, 'Fleet Shop');
}, 60_000);

afterAll(async () => {
  await fleet?.stop();
});

let lastAddress = 0;
/** An address no other request of this file has used. */
const freshAddress = () => {
  const n = ++lastAddress;
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
};

const userinfo = (base: string, token: string) =>
  fetch(`${base}/v1/userinfo`, {
    headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': freshAddress() },
  });

describe('three instances on one database', () => {
  test('a code is redeemed once across instances; the replays revoke its token everywhere', async () => {
    const b = new FleetBrowser(urls, fleet.baseUrl, freshAddress());
    const { code, verifier } = await signInForCode(b, client);

    const backend = freshAddress();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        fetch(`${urls[i % urls.length]}/v1/oauth/token`, tokenRequest(client, code, verifier, backend)).then(
          async (r) => ({ status: r.status, body: (await r.json()) as Record<string, string> }),
        ),
      ),
    );
    const won = results.filter((r) => r.status === 200);
    expect(won).toHaveLength(1);
    expect(won[0]!.body.access_token).toStartWith('at_');
    const lost = results.filter((r) => r.status !== 200);
    expect(lost.map((r) => [r.status, r.body.error])).toEqual(
      Array.from({ length: 19 }, () => [400, 'invalid_grant']),
    );

    // Every replay revoked what the code issued: no instance accepts the token.
    for (const base of urls) {
      const res = await userinfo(base, won[0]!.body.access_token!);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toContain('invalid_token');
    }
  }, 30_000);

  test('a code replayed on another instance after a good exchange revokes the token on all of them', async () => {
    const b = new FleetBrowser(urls, fleet.baseUrl, freshAddress());
    const { code, verifier } = await signInForCode(b, client);
    const backend = freshAddress();
    const first = await fetch(`${urls[0]}/v1/oauth/token`, tokenRequest(client, code, verifier, backend));
    expect(first.status).toBe(200);
    const { access_token } = (await first.json()) as { access_token: string };
    for (const base of urls) expect((await userinfo(base, access_token)).status).toBe(200);

    const replay = await fetch(`${urls[1]}/v1/oauth/token`, tokenRequest(client, code, verifier, backend));
    expect(replay.status).toBe(400);
    expect(((await replay.json()) as { error: string }).error).toBe('invalid_grant');
    for (const base of urls) expect((await userinfo(base, access_token)).status).toBe(401);
  }, 30_000);

  test('a token revoked on one instance, or its consent revoked by the operator, is refused by all', async () => {
    const tokenFor = async (persona: string) => {
      const b = new FleetBrowser(urls, fleet.baseUrl, freshAddress());
      const { code, verifier } = await signInForCode(b, client, {
        persona,
        purpose: `Revocation ${persona}`,
      });
      const res = await fetch(
        `${urls[0]}/v1/oauth/token`,
        tokenRequest(client, code, verifier, freshAddress()),
      );
      const token = ((await res.json()) as { access_token: string }).access_token;
      for (const base of urls) expect((await userinfo(base, token)).status).toBe(200);
      return token;
    };

    // RFC 7009 at instance 1.
    const revoked = await tokenFor('dan');
    const answer = await fetch(`${urls[1]}/v1/oauth/revoke`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${btoa(`${client.clientId}:${client.clientSecret}`)}`,
        'x-forwarded-for': freshAddress(),
      },
      body: new URLSearchParams({ token: revoked }).toString(),
    });
    expect(answer.status).toBe(200);
    for (const base of urls) expect((await userinfo(base, revoked)).status).toBe(401);

    // The operator revokes the consent through the CLI.
    const cut = await tokenFor('cleo');
    const listed = await cli(
      'consents',
      'list',
      '--app',
      client.applicationId,
      '--person',
      'psn_sandbox_cleo',
      '--config',
      fleet.configPath,
      '--json',
    );
    expect(listed.stderr).toBe('');
    const [consent] = (listed.json as { consents: { consentId: string; status: string }[] }).consents.filter(
      (c) => c.status === 'active',
    );
    const ended = await cli('consents', 'revoke', consent!.consentId, '--config', fleet.configPath, '--json');
    expect(ended.json).toEqual({ consentId: consent!.consentId, status: 'revoked' });
    for (const base of urls) expect((await userinfo(base, cut)).status).toBe(401);
  }, 30_000);

  test('the OAuth rate limit is one count per address across the instances', async () => {
    const ip = freshAddress();
    const authorize = (base: string) =>
      fetch(
        `${base}/v1/oauth/authorize?${new URLSearchParams({
          response_type: 'code',
          client_id: client.clientId,
          redirect_uri: CALLBACK,
          scope: 'email',
          state: 's',
          code_challenge: 'A'.repeat(43),
          code_challenge_method: 'S256',
        })}`,
        { headers: { 'x-forwarded-for': ip }, redirect: 'manual' },
      );
    for (let i = 1; i <= 30; i++) {
      const res = await authorize(urls[i % urls.length]!);
      expect(res.status).toBe(303);
      expect(res.headers.get('x-ratelimit-limit')).toBe('30');
      expect(res.headers.get('x-ratelimit-remaining')).toBe(String(30 - i));
    }
    // The 31st and after are refused whichever instance gets them, in the interface's shape.
    for (const base of urls) {
      const over = await authorize(base);
      expect(over.status).toBe(429);
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(over.headers.get('x-ratelimit-remaining')).toBe('0');
      const body = (await over.json()) as { error: { code: string; message: string; requestId: string } };
      expect(body.error.code).toBe('RATE_LIMIT_EXCEEDED');
      expect(body.error.requestId).toBe(over.headers.get('x-request-id')!);
      // The token endpoint shares the bucket and answers in its own shape.
      const token = await fetch(`${base}/v1/oauth/token`, tokenRequest(client, 'x', 'v'.repeat(43), ip));
      expect(token.status).toBe(429);
      expect(((await token.json()) as { error: string }).error).toBe('RATE_LIMIT_EXCEEDED');
    }
    // Another address is unaffected.
    const other = await fetch(
      `${urls[0]}/v1/oauth/token`,
      tokenRequest(client, 'x', 'v'.repeat(43), freshAddress()),
    );
    expect(other.status).toBe(400);
  }, 30_000);

  test('concurrent requests from one address over all instances: exactly the limit get through', async () => {
    const ip = freshAddress();
    const results = await Promise.all(
      Array.from({ length: 45 }, (_, i) =>
        fetch(`${urls[i % urls.length]}/v1/oauth/token`, tokenRequest(client, 'x', 'v'.repeat(43), ip)),
      ),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 400)).toHaveLength(30);
    expect(statuses.filter((s) => s === 429)).toHaveLength(15);
    const remaining = results
      .filter((r) => r.status === 400)
      .map((r) => Number(r.headers.get('x-ratelimit-remaining')))
      .sort((a, b) => b - a);
    expect(remaining).toEqual(Array.from({ length: 30 }, (_, i) => 29 - i));
  }, 30_000);

  test('a redirect URI removed through the CLI is refused by every instance within a second', async () => {
    const extra = 'https://rp.example/other';
    const app = await createClient(fleet, 'Fleet Shop', [CALLBACK, extra]);
    const authorize = (base: string) =>
      fetch(
        `${base}/v1/oauth/authorize?${new URLSearchParams({
          response_type: 'code',
          client_id: app.clientId,
          redirect_uri: extra,
          scope: 'email',
          state: 's',
          code_challenge: 'A'.repeat(43),
          code_challenge_method: 'S256',
        })}`,
        { headers: { 'x-forwarded-for': freshAddress() }, redirect: 'manual' },
      );
    // Every instance has the client (and its redirect URIs) in its cache.
    for (const base of urls) expect((await authorize(base)).status).toBe(303);

    const removed = await cli(
      'apps',
      'update',
      app.applicationId,
      '--remove-redirect-uri',
      extra,
      '--config',
      fleet.configPath,
    );
    expect(removed.stderr).toBe('');
    expect(removed.code).toBe(0);
    await Promise.all(
      urls.map((base) =>
        waitFor(
          `${base} to refuse the removed URI`,
          async () => (await authorize(base)).status === 400,
          1000,
        ),
      ),
    );
    // And it stays refused: no instance serves the old set again.
    for (const base of urls) expect((await authorize(base)).status).toBe(400);
  }, 30_000);

  test('a client secret rotated through the CLI stops working on every instance within a second', async () => {
    const app = await createClient(fleet, 'Fleet Shop');
    // A made-up code: a good secret gets as far as invalid_grant, a bad one is invalid_client.
    const exchange = (base: string, secret: string) =>
      fetch(
        `${base}/v1/oauth/token`,
        tokenRequest({ clientId: app.clientId, clientSecret: secret }, 'x', 'v'.repeat(43), freshAddress()),
      );
    for (const base of urls) expect((await exchange(base, app.clientSecret)).status).toBe(400);

    const rotated = await cli(
      'apps',
      'secret',
      'rotate',
      app.applicationId,
      '--env',
      'sandbox',
      '--config',
      fleet.configPath,
      '--json',
    );
    expect(rotated.stderr).toBe('');
    expect(rotated.code).toBe(0);
    await Promise.all(
      urls.map((base) =>
        waitFor(
          `${base} to refuse the old secret`,
          async () => (await exchange(base, app.clientSecret)).status === 401,
          1000,
        ),
      ),
    );
    for (const base of urls) {
      const old = await exchange(base, app.clientSecret);
      expect(old.status).toBe(401);
      expect(old.headers.get('www-authenticate')).toBeTruthy();
      expect((await exchange(base, rotated.json.clientSecret)).status).toBe(400);
    }
  }, 30_000);

  test('an identity sign-in whose steps each go to another instance ends with a working code', async () => {
    // Five requests and more per sign-in: with three instances no two successive ones share one.
    const b = new FleetBrowser(urls, fleet.baseUrl, freshAddress());
    const { code, verifier, wasSignedIn } = await signInForCode(b, client, { persona: 'ben' });
    expect(wasSignedIn).toBe(false);
    const res = await fetch(
      `${urls[2]}/v1/oauth/token`,
      tokenRequest(client, code, verifier, freshAddress()),
    );
    expect(res.status).toBe(200);
    const { access_token } = (await res.json()) as { access_token: string };
    const info = await userinfo(urls[0]!, access_token);
    expect(((await info.json()) as { email: string }).email).toBe('ben@sandbox.example');

    // The same browser, signed in: the next authorization on any instance skips the sign-in.
    const again = await signInForCode(b, client, { persona: 'ben' });
    expect(again.wasSignedIn).toBe(true);
    expect(again.code).not.toBe(code);
  }, 30_000);

  test('a portal session started on one instance is the same session on the others', async () => {
    const invite = await cli(
      'developers',
      'invite',
      '--email',
      'fleet@example.com',
      '--config',
      fleet.configPath,
      '--json',
    );
    expect(invite.code).toBe(0);
    const b = new FleetBrowser(urls, fleet.baseUrl, freshAddress());
    const path = new URL(invite.json.url).pathname;
    const password = 'correct horse battery staple';
    const accept = await b.page(path);
    expect(accept.res.status).toBe(200);
    const signedUp = await b.post(path, {
      csrf_token: accept.csrf,
      name: 'Fleet',
      password,
      confirm: password,
    });
    expect(signedUp.status).toBe(303);
    expect(locationPath(signedUp)).toBe('/developer/apps');

    // A form read on one instance and posted to another: the session and its CSRF token hold.
    const form = await b.page('/developer/apps/new');
    expect(form.res.status).toBe(200);
    const created = await b.post('/developer/apps', {
      csrf_token: form.csrf,
      name: 'Made across instances',
      type: 'confidential',
      redirect_uris: CALLBACK,
      scopes: 'openid',
    });
    expect(created.status).toBe(303);
    for (let i = 0; i < urls.length; i++) {
      const list = await b.page('/developer/apps');
      expect(list.res.status).toBe(200);
      expect(list.html).toContain('Made across instances');
    }

    // Signed out on one instance, signed out on all.
    const signout = await b.post('/developer/signout', {
      csrf_token: (await b.page('/developer/apps')).csrf,
    });
    expect(signout.status).toBe(303);
    for (let i = 0; i < urls.length; i++) {
      const res = await b.get('/developer/apps');
      expect(res.status).toBe(303);
      expect(locationPath(res)).toBe('/developer/signin');
    }
  }, 30_000);
});
