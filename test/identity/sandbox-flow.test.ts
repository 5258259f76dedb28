import { afterEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { PERSONAS } from '../../src/identity/personas.ts';
import { subjectFor } from '../../src/keys/pairwise.ts';
import {
  Browser,
  CALLBACK,
  callbackParams,
  decide,
  exchangeCode,
  type Flow,
  flow,
  location,
  open,
  passFace,
  pkcePair,
  signInPersona,
} from './flow-helpers.ts';

// Argon2id hashing and per-test databases are slow on a busy machine.
setDefaultTimeout(20_000);

let f: Flow;
afterEach(() => f?.cleanup());

const events = (type: string) =>
  f.ctx.db.sql
    .prepare<{ body: string }>('SELECT body FROM webhook_events WHERE type = ? ORDER BY id')
    .all(type)
    .map((r) => JSON.parse(r.body));

const request = (id: string) =>
  f.ctx.db.sql
    .prepare<{ status: string; amr: string; acr: string | null; person_id: string | null }>(
      'SELECT status, amr, acr, person_id FROM authorization_requests WHERE id = ?',
    )
    .get(id)!;

const idOf = (path: string) => path.split('/').pop()!;

/** Persona sign-in and face pass; returns the response of the face step. */
async function throughFace(path: string, persona = 'ada') {
  const r = await signInPersona(f.browser, path, persona);
  expect(location(r)).toBe(`${path}/face`);
  return passFace(f.browser, path);
}

describe('sandbox flow', () => {
  test('persona → face → consent → callback with code, state and iss', async () => {
    f = await flow();
    const path = await f.authorize();
    expect(path).toStartWith('/identity/authorize/');
    const face = await throughFace(path);
    expect(face.status).toBe(303);
    expect(location(face)).toBe(`${path}/consent`);

    const consent = await open(f.browser, `${path}/consent`);
    expect(consent.html).toContain('Acme Shop');
    expect(consent.html).toContain('Check your age before delivery');
    expect(consent.html).toContain('Whether you are over 18');
    expect(consent.html).toContain('A private identifier for you at this application');
    expect(consent.html).toMatch(/<button[^>]*value="allow"[^>]*>Allow<\/button>/);
    expect(consent.html).toMatch(/<button[^>]*value="deny"[^>]*>Deny<\/button>/);

    const done = await decide(f.browser, path, 'allow');
    expect(done.status).toBe(303);
    const q = callbackParams(done);
    expect(q.code).toBeString();
    expect(q.state).toBe('state-123');
    expect(q.iss).toBe(f.ctx.config.server.base_url);

    // amr, acr and auth_time reach the code.
    const code = f.ctx.db.sql
      .prepare<{
        amr: string;
        acr: string;
        liveness_verified: number;
        face_match_verified: number;
        auth_time: number;
      }>('SELECT amr, acr, liveness_verified, face_match_verified, auth_time FROM authorization_codes')
      .get()!;
    expect(JSON.parse(code.amr)).toEqual(['sandbox', 'face']);
    expect(code.acr).toBe('high');
    expect(code.liveness_verified).toBe(1);
    expect(code.face_match_verified).toBe(1);
    expect(code.auth_time).toBe(Math.floor(f.ctx.clock.now().getTime() / 1000));
  });

  test('consent.granted and claim_access.completed are recorded with their payloads', async () => {
    f = await flow();
    const path = await f.authorize();
    await throughFace(path);
    await decide(f.browser, path, 'allow');
    const sub = await subjectFor(f.ctx, f.client.applicationId, 'psn_sandbox_ada');

    const [granted] = events('consent.granted');
    const consent = f.ctx.db.sql
      .prepare<{ id: string; scopes: string; expires_at: number; granted_at: number }>(
        'SELECT * FROM consents',
      )
      .get()!;
    expect(granted.data).toEqual({
      consentId: consent.id,
      applicationId: f.client.applicationId,
      environment: 'sandbox',
      sub,
      scopes: JSON.parse(consent.scopes),
      purpose: 'Check your age before delivery',
      at: f.ctx.clock.now().toISOString(),
    });
    expect(granted.data.scopes).toEqual([...granted.data.scopes].sort());
    // A persona's consent is held by the browser session, and ends with it (12 hours at most).
    expect(consent.expires_at - consent.granted_at).toBe(12 * 3600);

    const [completed] = events('claim_access.completed');
    expect(completed.data).toEqual({
      applicationId: f.client.applicationId,
      environment: 'sandbox',
      decision: 'approved',
      sub,
      scopes: ['openid', 'profile', 'email', 'age_over_18', 'identity_assurance_level', 'liveness_verified'],
    });
  });

  test('the picker offers the six personas as buttons named after them, and a forced outcome', async () => {
    f = await flow();
    const { res, html } = await open(f.browser, await f.authorize());
    expect(res.status).toBe(200);
    for (const name of [
      'Ada Sandbox',
      'Ben Sandbox',
      'Cleo Sandbox',
      'Dan Sandbox',
      'Eve Sandbox',
      'Finn Sandbox',
    ])
      expect(html).toMatch(new RegExp(`<button[^>]*name="persona"[^>]*>${name}</button>`));
    expect(html).toContain('<label for="outcome">Forced outcome</label>');
    expect(PERSONAS).toHaveLength(6);
  });

  test('consent Deny ends with access_denied and records a denied decision, no consent', async () => {
    f = await flow();
    const path = await f.authorize();
    await throughFace(path);
    const q = callbackParams(await decide(f.browser, path, 'deny'));
    expect(q.error).toBe('access_denied');
    expect(q.error_description).toBeString();
    expect(q.state).toBe('state-123');
    expect(q.code).toBeUndefined();
    expect(f.ctx.db.sql.prepare('SELECT * FROM consents').all()).toHaveLength(0);
    expect(events('consent.granted')).toHaveLength(0);
    expect(events('claim_access.completed')[0].data).toMatchObject({
      decision: 'denied',
      reason: 'person_denied',
    });
    // The finished request cannot be resumed.
    expect((await f.browser.get(path)).status).toBe(404);
  });
});

describe('face assurance outcomes (sandbox)', () => {
  const cases: [string, string, string, string][] = [
    ['ada', 'fail_liveness', 'liveness', 'liveness_failed'],
    ['ada', 'fail_match', 'did not match', 'face_match_failed'],
    ['eve', 'pass', 'did not match', 'face_match_failed'],
    ['eve', 'fail_liveness', 'liveness check', 'liveness_failed'],
    ['finn', 'pass', 'liveness', 'liveness_failed'],
    ['finn', 'fail_match', 'liveness', 'liveness_failed'],
  ];
  // With one attempt, the first failure ends the request (retries: face-retry.test.ts).
  for (const [persona, clicked, text, reason] of cases)
    test(`${persona} choosing ${clicked} ends with access_denied (${reason})`, async () => {
      f = await flow({ extra: '[face]\nattempts = 1' });
      const path = await f.authorize();
      await signInPersona(f.browser, path, persona);
      const { html } = await open(f.browser, `${path}/face`);
      for (const name of ['Pass face check', 'Fail liveness', 'Fail face match'])
        expect(html).toContain(`>${name}</button>`);
      const q = callbackParams(await passFace(f.browser, path, clicked));
      expect(q.error).toBe('access_denied');
      expect(q.error_description).toContain(text);
      expect(q.state).toBe('state-123');
      expect(events('claim_access.completed')[0].data).toMatchObject({ decision: 'failed', reason });
      expect(request(idOf(path)).status).toBe('failed');
    });

  test('eve and finn pass nothing, whatever is clicked; ben passes', async () => {
    f = await flow();
    const path = await f.authorize();
    await signInPersona(f.browser, path, 'ben');
    expect(location(await passFace(f.browser, path))).toBe(`${path}/consent`);
  });

  test('forced outcomes chosen on the picker end the flow at sign-in', async () => {
    f = await flow();
    // A fresh browser each time: a signed-in session skips the picker.
    const run = async (outcome: string) => {
      const b = new Browser(f.app);
      return callbackParams(await signInPersona(b, await f.authorize({}, b), 'ada', outcome));
    };
    const denied = await run('deny');
    expect(denied.error).toBe('access_denied');
    const liveness = await run('fail_liveness');
    expect(liveness.error).toBe('access_denied');
    expect(liveness.error_description).toContain('liveness');
    const match = await run('fail_match');
    expect(match.error_description).toContain('match');
    expect(events('claim_access.completed').map((e) => e.data.decision)).toEqual([
      'denied',
      'failed',
      'failed',
    ]);
  });

  test('the face step cannot be skipped: consent before face is refused', async () => {
    f = await flow();
    const path = await f.authorize();
    await signInPersona(f.browser, path);
    const consentPage = await f.browser.get(`${path}/consent`);
    expect(consentPage.status).toBe(303);
    expect(location(consentPage)).toBe(`${path}/face`);
    const { csrf } = await open(f.browser, `${path}/face`);
    const post = await f.browser.post(`${path}/consent`, { csrf_token: csrf, decision: 'allow' });
    expect(location(post)).toBe(`${path}/face`);
    expect(f.ctx.db.sql.prepare('SELECT * FROM authorization_codes').all()).toHaveLength(0);
  });
});

describe('consent reuse', () => {
  test('an identical active consent skips the screen but never the face step', async () => {
    f = await flow();
    const first = await f.authorize();
    await throughFace(first);
    await decide(f.browser, first, 'allow');

    f.ctx.clock.advance(60_000);
    const second = await f.authorize();
    // Signed in already: straight to the face step, which still has to be passed.
    const entry = await f.browser.get(second);
    expect(location(entry)).toBe(`${second}/face`);
    const face = await passFace(f.browser, second);
    const q = callbackParams(face);
    expect(q.code).toBeString();
    const consents = f.ctx.db.sql
      .prepare<{ last_used_at: number }>('SELECT last_used_at FROM consents')
      .all();
    expect(consents).toHaveLength(1);
    expect(consents[0]!.last_used_at).toBe(Math.floor(f.ctx.clock.now().getTime() / 1000));
    expect(events('consent.granted')).toHaveLength(1);
  });

  test('a failed face check ends the request even when consent exists', async () => {
    f = await flow({ extra: '[face]\nattempts = 1' });
    const first = await f.authorize();
    await throughFace(first);
    await decide(f.browser, first, 'allow');
    const second = await f.authorize();
    await f.browser.get(second);
    expect(callbackParams(await passFace(f.browser, second, 'fail_match')).error).toBe('access_denied');
  });

  test('another purpose, scope set or prompt=consent shows the screen again', async () => {
    f = await flow();
    const first = await f.authorize();
    await throughFace(first);
    await decide(f.browser, first, 'allow');

    const variants: Record<string, string>[] = [
      { purpose: 'Something else' },
      { scope: 'openid profile' },
      { prompt: 'consent' },
    ];
    for (const params of variants) {
      const path = await f.authorize(params);
      await f.browser.get(path);
      expect(location(await passFace(f.browser, path))).toBe(`${path}/consent`);
    }
  });

  test('scope order does not matter', async () => {
    f = await flow();
    const first = await f.authorize({ scope: 'openid profile email' });
    await throughFace(first);
    await decide(f.browser, first, 'allow');
    const path = await f.authorize({ scope: 'email openid profile' });
    await f.browser.get(path);
    expect(callbackParams(await passFace(f.browser, path)).code).toBeString();
  });
});

describe('prompt, max_age and display', () => {
  test('prompt=none without a session answers login_required', async () => {
    f = await flow();
    const res = await f.browser.get(await f.authorize({ prompt: 'none' }));
    const q = callbackParams(res);
    expect(q.error).toBe('login_required');
    expect(q.state).toBe('state-123');
  });

  test('prompt=none with a session but no consent answers consent_required, with consent interaction_required', async () => {
    f = await flow();
    const first = await f.authorize();
    await throughFace(first);
    expect(callbackParams(await f.browser.get(await f.authorize({ prompt: 'none' }))).error).toBe(
      'consent_required',
    );
    await decide(f.browser, first, 'allow');
    expect(callbackParams(await f.browser.get(await f.authorize({ prompt: 'none' }))).error).toBe(
      'interaction_required',
    );
  });

  test('prompt=login asks for sign-in again even with a session', async () => {
    f = await flow();
    await throughFace(await f.authorize());
    const path = await f.authorize({ prompt: 'login' });
    const res = await f.browser.get(path);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('Choose a test persona');
    f.ctx.clock.advance(5000);
    expect(location(await signInPersona(f.browser, path))).toBe(`${path}/face`);
    expect(request(idOf(path)).status).toBe('authenticated');
  });

  test('max_age: within it the session is reused, beyond it sign-in is asked again', async () => {
    f = await flow();
    await throughFace(await f.authorize());
    f.ctx.clock.advance(120_000);
    const within = await f.authorize({ max_age: '300' });
    expect(location(await f.browser.get(within))).toBe(`${within}/face`);
    const beyond = await f.authorize({ max_age: '60' });
    const res = await f.browser.get(beyond);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('Choose a test persona');
  });

  test('max_age=0 is prompt=login: a fresh session signs in again, and auth_time is the new sign-in', async () => {
    f = await flow();
    const first = await f.authorize();
    await throughFace(first);
    await decide(f.browser, first, 'allow');
    const firstSignIn = Math.floor(f.ctx.clock.now().getTime() / 1000);

    // In the same second as the sign-in, still asked to sign in again.
    const path = await f.authorize({ max_age: '0' });
    const page = await f.browser.get(path);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Choose a test persona');

    f.ctx.clock.advance(30_000);
    const { verifier, challenge } = pkcePair();
    const again = await f.authorize({ max_age: '0', code_challenge: challenge });
    const face = await throughFace(again);
    const { code } = callbackParams(face);
    const idToken = (await exchangeCode(f.app, f.client, code!, verifier)).id_token;
    const claims = JSON.parse(Buffer.from(idToken.split('.')[1]!, 'base64url').toString());
    expect(claims.auth_time).toBe(firstSignIn + 30);
  });

  test('display=popup gives the compact layout', async () => {
    f = await flow();
    const popup = await open(f.browser, await f.authorize({ display: 'popup' }));
    expect(popup.html).toContain('<body class="popup">');
    const page = await open(f.browser, await f.authorize());
    expect(page.html).toContain('<body class="page">');
  });

  test('ui_locales picks a catalogue and falls back to English', async () => {
    f = await flow();
    const { html } = await open(f.browser, await f.authorize({ ui_locales: 'fr-CA en' }));
    expect(html).toContain('<html lang="en">');
  });
});

test('callback is the registered URI exactly', async () => {
  f = await flow();
  const path = await f.authorize();
  await throughFace(path);
  expect(location(await decide(f.browser, path, 'allow'))).toStartWith(`${CALLBACK}?`);
});
