import { afterEach, expect, setDefaultTimeout, test } from 'bun:test';
import { jsonLogger } from '../../src/log.ts';
import { Browser, type Flow, flow, location, passFace, signInPersona } from '../identity/flow-helpers.ts';
import { basic, mintCode, tokenRequest } from '../oauth/fixtures.ts';

setDefaultTimeout(20_000);

let f: Flow;
afterEach(() => f?.cleanup());

/** Logs from now on; the returned function gives each security event logged so far as [event, requestId]. */
function securityEvents(): () => [string, string][] {
  const lines: string[] = [];
  f.ctx.log = jsonLogger('info', (l) => lines.push(l));
  return () =>
    lines
      .map((l) => JSON.parse(l))
      .filter((l) => l.msg === 'security event')
      .map((l) => [l.event, l.requestId]);
}

// The log-secrets test covers the portal, the consent and code events and the token endpoint; these
// are the remaining paths, each checked against the id of the response that caused it.
test('a sandbox sign-in and a failed face check carry the id of the request that caused them', async () => {
  f = await flow({ extra: '[face]\nattempts = 1' });
  const events = securityEvents();
  const path = await f.authorize();
  const signin = await signInPersona(f.browser, path, 'ada');
  expect(location(signin)).toBe(`${path}/face`);
  const face = await passFace(f.browser, path, 'fail_liveness');
  expect(face.status).toBe(303);
  expect(events()).toEqual([
    ['signin.succeeded', signin.headers.get('X-Request-Id')!],
    ['face.failed', face.headers.get('X-Request-Id')!],
  ]);
});

test('a forced outcome on the persona picker logs face.failed with the picker request id', async () => {
  f = await flow();
  const events = securityEvents();
  const b = new Browser(f.app);
  const res = await signInPersona(b, await f.authorize({}, b), 'ada', 'fail_match');
  const id = res.headers.get('X-Request-Id')!;
  expect(events()).toEqual([
    ['signin.succeeded', id],
    ['face.failed', id],
  ]);
});

test('a token revoked at the revocation endpoint logs token.revoked with that request id', async () => {
  f = await flow();
  const minted = await mintCode(f.ctx, f.client, { redirectUri: 'https://rp.example/callback' });
  const auth = basic(f.client.clientId, f.client.clientSecret!);
  const token = await f.app.request(
    '/v1/oauth/token',
    tokenRequest(
      {
        grant_type: 'authorization_code',
        code: minted.code,
        redirect_uri: minted.redirectUri,
        code_verifier: minted.verifier,
      },
      { auth },
    ),
    { ip: '198.51.100.7' },
  );
  expect(token.status).toBe(200);
  const { access_token } = (await token.json()) as { access_token: string };
  const events = securityEvents();
  const revoke = await f.app.request(
    '/v1/oauth/revoke',
    tokenRequest({ token: access_token }, { auth, as: 'form' }),
    { ip: '198.51.100.7' },
  );
  expect(revoke.status).toBe(200);
  expect(events()).toEqual([['token.revoked', revoke.headers.get('X-Request-Id')!]]);
});
