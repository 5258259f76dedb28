import { afterEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { hashPassword } from '../../src/crypto/password.ts';
import { CHALLENGE_FRAMES } from '../../src/identity/face/challenge.ts';
import type { FaceVerifyInput } from '../../src/identity/face/provider.ts';
import { createPersonStore } from '../../src/persons/person.store.ts';
import { unix } from '../../src/platform/clock.ts';
import { Browser, callbackParams, type Flow, flow, location, open, signInPersona } from './flow-helpers.ts';

// Argon2id hashing and per-test databases are slow on a busy machine.
setDefaultTimeout(20_000);

let f: Flow;
let server: ReturnType<typeof Bun.serve> | undefined;
afterEach(async () => {
  f?.cleanup();
  await server?.stop(true);
  server = undefined;
});

const PASSWORD = 'correct horse battery staple';
// Hashed once: argon2id is deliberately slow.
const HASH = hashPassword(PASSWORD);

/** A production person who can sign in with a password and has an enrolled face template. */
async function person(email = 'grace@example.org', id = 'psn_grace') {
  const now = unix(f.ctx.clock);
  const persons = createPersonStore(f.ctx.db);
  persons.insert({
    id,
    externalId: `ext-${id}`,
    environment: 'production',
    name: 'Grace Hopper',
    givenName: 'Grace',
    familyName: 'Hopper',
    passwordHash: await HASH,
    assuranceLevel: 'substantial',
    identityVerified: true,
    faceTemplateRef: 'tpl_grace',
    status: 'active',
    createdAt: now,
    updatedAt: now,
  });
  persons.replaceEmails(id, [{ email, verified: true, primary: true }]);
}

async function signIn(b: Browser, path: string, email: string, password: string) {
  const { csrf } = await open(b, path);
  return b.post(`${path}/signin`, { csrf_token: csrf, email, password });
}

/** A loopback face-verification service standing in for the real one. */
function faceService(
  answer: (body: FaceVerifyInput & { subject: string }, req: Request) => Response | Promise<Response>,
) {
  const seen: { body: any; auth: string | null }[] = [];
  server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      const body = (await req.json()) as any;
      seen.push({ body, auth: req.headers.get('authorization') });
      return answer(body, req);
    },
  });
  return { url: `http://127.0.0.1:${server.port}/verify`, seen };
}

const httpFace = (url: string, timeout = '2s') =>
  `[face]\nprovider = "http"\nhttp_url = "${url}"\nhttp_token = "face-secret"\ntimeout = "${timeout}"`;

const FRAME =
  'data:image/jpeg;base64,/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxA=';
// One frame under each of the challenge's colours.
const FRAMES = Array<string>(CHALLENGE_FRAMES).fill(FRAME);

describe('production sign-in', () => {
  test('Email and Password fields with a Sign in button; login_hint pre-fills the email', async () => {
    f = await flow({ environment: 'production' });
    const { html } = await open(f.browser, await f.authorize({ login_hint: 'grace@example.org' }));
    expect(html).toContain('<label for="email">Email</label>');
    expect(html).toContain('<label for="password">Password</label>');
    expect(html).toMatch(/<button type="submit">Sign in<\/button>/);
    expect(html).toMatch(/<input id="email"[^>]*value="grace@example.org"/);
    expect(html).not.toContain('Ada Sandbox');
  });

  test('a wrong password is refused with one message for every cause', async () => {
    f = await flow({ environment: 'production' });
    await person();
    const path = await f.authorize();
    for (const [email, password] of [
      ['grace@example.org', 'wrong'],
      ['nobody@example.org', PASSWORD],
      ['ada@sandbox.example', PASSWORD],
    ]) {
      const res = await signIn(f.browser, path, email!, password!);
      expect(res.status).toBe(401);
      expect(await res.text()).toContain('The email or password is not correct.');
    }
  });

  test('the right password moves to the face step; a sandbox session is not reused for production', async () => {
    f = await flow({ environment: 'production' });
    await person();
    // Signed in as a sandbox persona in the same browser: production still asks for a password.
    const sandboxClient = await flow();
    try {
      const sb = await sandboxClient.authorize();
      await signInPersona(sandboxClient.browser, sb);
    } finally {
      sandboxClient.cleanup();
    }
    const path = await f.authorize();
    expect((await f.browser.get(path)).status).toBe(200);
    const res = await signIn(f.browser, path, 'GRACE@example.org', PASSWORD);
    expect(res.status).toBe(303);
    expect(location(res)).toBe(`${path}/face`);
  });

  test('throttled per account: after the limit even the right password waits for the window', async () => {
    f = await flow({
      environment: 'production',
      extra: '[identity]\nsignin_attempts_per_account = 3\ninteraction_ttl = "1h"',
    });
    await person();
    const path = await f.authorize();
    for (let i = 0; i < 3; i++)
      expect((await signIn(f.browser, path, 'grace@example.org', 'nope')).status).toBe(401);
    const blocked = await signIn(f.browser, path, 'grace@example.org', PASSWORD);
    expect(blocked.status).toBe(429);
    expect(await blocked.text()).toContain('Too many sign-in attempts');
    // From another address too: the account is what is protected.
    const other = new Browser(f.app, '192.0.2.99');
    const path2 = await f.authorize({}, other);
    expect((await signIn(other, path2, 'grace@example.org', PASSWORD)).status).toBe(429);
    f.ctx.clock.advance(15 * 60_000);
    expect((await signIn(f.browser, path, 'grace@example.org', PASSWORD)).status).toBe(303);
  });

  test('guesses from elsewhere do not lock the person out of a browser they signed in with before', async () => {
    f = await flow({
      environment: 'production',
      extra: '[identity]\nsignin_attempts_per_account = 3\ninteraction_ttl = "1h"',
    });
    await person();
    await person('ada@example.org', 'psn_ada');
    // The owner's browser signed in once before; the sign-in made it known to the account.
    const owner = f.browser;
    expect((await signIn(owner, await f.authorize(), 'grace@example.org', PASSWORD)).status).toBe(303);
    const knownCookie = owner.cookies.get('__Host-verity_known')!;
    expect(knownCookie).toMatch(/^[\w-]{22}\.[\w-]{43}$/);
    owner.cookies.delete('__Host-verity_session');
    // Someone else uses up the account's guesses, from several addresses.
    for (let i = 0; i < 3; i++) {
      const stranger = new Browser(f.app, `203.0.113.${i + 1}`);
      expect(
        (await signIn(stranger, await f.authorize({}, stranger), 'grace@example.org', 'nope')).status,
      ).toBe(401);
    }
    const stranger = new Browser(f.app, '203.0.113.50');
    const strangerPath = await f.authorize({}, stranger);
    expect((await signIn(stranger, strangerPath, 'grace@example.org', PASSWORD)).status).toBe(429);
    // The cookie copied into the stranger's browser with its MAC altered, or presented for another
    // account, is no key.
    const [id, mac] = knownCookie.split('.');
    stranger.cookies.set('__Host-verity_known', `${id}.${mac!.slice(0, -2)}AA`);
    expect((await signIn(stranger, strangerPath, 'grace@example.org', PASSWORD)).status).toBe(429);
    // The owner's browser is let through, with the right password only; its own guesses have a limit
    // of their own.
    const path = await f.authorize();
    expect((await signIn(owner, path, 'grace@example.org', PASSWORD)).status).toBe(303);
    owner.cookies.delete('__Host-verity_session');
    // Which does not give the others their guesses back.
    expect((await signIn(stranger, strangerPath, 'grace@example.org', PASSWORD)).status).toBe(429);
    const again = await f.authorize();
    for (let i = 0; i < 3; i++)
      expect((await signIn(owner, again, 'grace@example.org', 'nope')).status).toBe(401);
    expect((await signIn(owner, again, 'grace@example.org', PASSWORD)).status).toBe(429);
    // Ada's account never saw this browser sign in: her count is her own (three guesses, then none).
    const ada = new Browser(f.app, '203.0.113.60');
    ada.cookies.set('__Host-verity_known', knownCookie);
    const adaPath = await f.authorize({}, ada);
    for (let i = 0; i < 3; i++)
      expect((await signIn(ada, adaPath, 'ada@example.org', 'nope')).status).toBe(401);
    expect((await signIn(ada, adaPath, 'ada@example.org', PASSWORD)).status).toBe(429);
  });

  test('throttled per IP: many accounts from one address', async () => {
    f = await flow({
      environment: 'production',
      extra: '[identity]\nsignin_attempts_per_ip = 4\ninteraction_ttl = "1h"',
    });
    await person();
    const path = await f.authorize();
    for (let i = 0; i < 4; i++) await signIn(f.browser, path, `user${i}@example.org`, 'guess');
    expect((await signIn(f.browser, path, 'grace@example.org', PASSWORD)).status).toBe(429);
    const other = new Browser(f.app, '192.0.2.50');
    expect((await signIn(other, await f.authorize({}, other), 'grace@example.org', PASSWORD)).status).toBe(
      303,
    );
  });
});

describe('production face assurance', () => {
  async function atFace(extra: string) {
    f = await flow({ environment: 'production', extra });
    await person();
    const path = await f.authorize();
    await signIn(f.browser, path, 'grace@example.org', PASSWORD);
    return path;
  }

  /** The face step as the camera page shows it: its CSRF token and challenge. */
  async function facePage(path: string) {
    const page = await open(f.browser, `${path}/face`);
    const challenge = /name="challenge" value="([\w-]+)"/.exec(page.html)?.[1] ?? '';
    return { ...page, challenge };
  }

  const sendFrames = (path: string, form: { csrf: string; challenge: string }, frames: string[]) =>
    f.browser.post(`${path}/face`, {
      csrf_token: form.csrf,
      challenge: form.challenge,
      frames: JSON.stringify(frames),
    });

  const postFrames = async (path: string, frames: string[]) => sendFrames(path, await facePage(path), frames);

  test('provider "none": a clear page, and Continue ends the request with access_denied', async () => {
    const path = await atFace('');
    const { res, html } = await open(f.browser, `${path}/face`);
    expect(res.status).toBe(200);
    expect(html).toContain('Face assurance is not available');
    expect(html).toMatch(/<button type="submit">Continue<\/button>/);
    expect(html).toContain('>Cancel and return to Acme Shop</button>');
    const { csrf } = await open(f.browser, `${path}/face`);
    const q = callbackParams(await f.browser.post(`${path}/face/unavailable`, { csrf_token: csrf }));
    expect(q.error).toBe('access_denied');
    expect(q.error_description).toContain('not configured');
  });

  test('provider "none": posting frames anyway still fails', async () => {
    const path = await atFace('');
    const q = callbackParams(await postFrames(path, FRAMES));
    expect(q.error).toBe('access_denied');
  });

  test('http provider pass: the documented JSON contract, bearer token, then consent', async () => {
    const svc = faceService(() =>
      Response.json({ liveness: { passed: true, score: 0.97 }, match: { passed: true, score: 0.91 } }),
    );
    const path = await atFace(httpFace(svc.url));
    const page = await facePage(path);
    expect(page.html).toContain('Start face check');
    expect(page.html).toMatch(/<script nonce="[^"]+">/);
    expect(page.html).toContain('>Cancel and return to Acme Shop</button>');
    // The page lights the frames with the challenge's colours, each unlike the one before.
    const colours = JSON.parse(/for \(const colour of (\[[^\]]+\])\)/.exec(page.html)![1]!) as string[];
    expect(colours).toHaveLength(5);
    for (const [i, colour] of colours.entries()) {
      expect(colour).toMatch(/^#[0-9a-f]{6}$/);
      if (i) expect(colour).not.toBe(colours[i - 1]);
    }
    const res = await sendFrames(path, page, FRAMES);
    expect(location(res)).toBe(`${path}/consent`);
    expect(svc.seen).toHaveLength(1);
    expect(svc.seen[0]!.auth).toBe('Bearer face-secret');
    expect(svc.seen[0]!.body).toEqual({
      templateRef: 'tpl_grace',
      subject: 'psn_grace',
      frames: FRAMES,
      challenge: { value: page.challenge, colours },
    });
    // Frames are not stored anywhere.
    const dump = JSON.stringify(f.ctx.db.sql.prepare('SELECT * FROM authorization_requests').all());
    expect(dump).not.toContain('base64');
    const q = callbackParams(
      await (async () => {
        const { csrf } = await open(f.browser, `${path}/consent`);
        return f.browser.post(`${path}/consent`, { csrf_token: csrf, decision: 'allow' });
      })(),
    );
    expect(q.code).toBeString();
    const code = f.ctx.db.sql
      .prepare<{ amr: string; acr: string }>('SELECT amr, acr FROM authorization_codes')
      .get()!;
    expect(JSON.parse(code.amr)).toEqual(['pwd', 'face']);
    expect(code.acr).toBe('substantial');
  });

  // With the default three attempts, a failed check may be retried; none of these may.
  const failures: [string, () => Response | Promise<Response>, string][] = [
    [
      'a timeout',
      async () => {
        await Bun.sleep(1000);
        return Response.json({});
      },
      'did not answer in time',
    ],
    ['an error status', () => new Response('boom', { status: 500 }), 'status 500'],
    ['a malformed answer', () => Response.json({ liveness: { passed: 'yes' } }), 'unexpected answer'],
    [
      'an unreadable answer',
      () => new Response('not json', { headers: { 'content-type': 'application/json' } }),
      'unreadable',
    ],
  ];
  for (const [name, answer, text] of failures)
    test(`http provider: ${name} ends the request with access_denied and a description`, async () => {
      const svc = faceService(answer);
      const path = await atFace(httpFace(svc.url, '200ms'));
      const q = callbackParams(await postFrames(path, FRAMES));
      expect(q.error).toBe('access_denied');
      expect(q.error_description).toContain(text);
      expect(q.state).toBe('state-123');
    });

  test('http provider: failed checks show the face step again, the third ends the request', async () => {
    const answers = [
      { liveness: { passed: false, score: 0.2 }, match: { passed: false, score: 0 } },
      { liveness: { passed: true, score: 0.9 }, match: { passed: false, score: 0.3 } },
      { liveness: { passed: false, score: 0.1 }, match: { passed: false, score: 0 } },
    ];
    const svc = faceService(() => Response.json(answers.shift()));
    const path = await atFace(httpFace(svc.url));
    expect(location(await postFrames(path, FRAMES))).toBe(`${path}/face`);
    let page = await open(f.browser, `${path}/face`);
    expect(page.html).toContain('the liveness check failed. Try again: 2 attempts left.');
    expect(page.html).toContain('Start face check');
    expect(location(await postFrames(path, FRAMES))).toBe(`${path}/face`);
    page = await open(f.browser, `${path}/face`);
    expect(page.html).toContain('your face did not match your account. Try again: 1 attempt left.');
    const q = callbackParams(await postFrames(path, FRAMES));
    expect(q.error).toBe('access_denied');
    expect(q.error_description).toContain('liveness');
    expect(svc.seen).toHaveLength(3);
  });

  test('frames reach the provider only with the challenge the step showed last, once and in time', async () => {
    const svc = faceService(() =>
      Response.json({ liveness: { passed: false, score: 0.1 }, match: { passed: false, score: 0 } }),
    );
    const path = await atFace(httpFace(svc.url));
    const attempts = () =>
      f.ctx.db.sql.prepare<{ n: number }>('SELECT face_failures AS n FROM authorization_requests').get()!.n;
    const refused = async (form: { csrf: string; challenge: string }) => {
      expect(location(await sendFrames(path, form, FRAMES))).toBe(`${path}/face`);
      expect(svc.seen).toHaveLength(0);
      expect(attempts()).toBe(0);
    };
    // None, one made up, and one of the right shape that was never shown.
    const first = await facePage(path);
    const none = await f.browser.post(`${path}/face`, {
      csrf_token: first.csrf,
      frames: JSON.stringify(FRAMES),
    });
    expect(none.status).toBe(400);
    expect((await sendFrames(path, { ...first, challenge: 'x' }, FRAMES)).status).toBe(400);
    await refused({ ...first, challenge: 'A'.repeat(22) });
    // Shown again while unused and under two minutes old (a reload, a second tab), then replaced.
    expect((await facePage(path)).challenge).toBe(first.challenge);
    f.ctx.clock.advance(119_000);
    expect((await facePage(path)).challenge).toBe(first.challenge);
    f.ctx.clock.advance(2_000);
    const second = await facePage(path);
    expect(second.challenge).not.toBe(first.challenge);
    await refused(first);
    // Older than three minutes.
    f.ctx.clock.advance(181_000);
    await refused(second);
    // The last one shown, in time: one check, and then it is used up.
    const third = await facePage(path);
    expect(location(await sendFrames(path, third, FRAMES))).toBe(`${path}/face`);
    expect(svc.seen).toHaveLength(1);
    expect(svc.seen[0]!.body.challenge.value).toBe(third.challenge);
    expect(location(await sendFrames(path, third, FRAMES))).toBe(`${path}/face`);
    expect(svc.seen).toHaveLength(1);
    expect(attempts()).toBe(1);
    // Used, it is not shown again: the step shows a new one at once.
    expect((await facePage(path)).challenge).not.toBe(third.challenge);
    // A frame for each colour, no fewer and no more.
    const fourth = await facePage(path);
    for (const frames of [FRAMES.slice(1), [...FRAMES, FRAME]])
      expect((await sendFrames(path, fourth, frames)).status).toBe(400);
    expect(svc.seen).toHaveLength(1);
  });

  test('camera frames of up to 8 MiB are read only for a request waiting for them in this browser', async () => {
    const svc = faceService(() => Response.json({ liveness: { passed: false }, match: { passed: false } }));
    const path = await atFace(httpFace(svc.url));
    const { csrf, challenge } = await facePage(path);
    // A megabyte of form: more than any other form may carry, well within the frames' limit.
    const big = {
      csrf_token: csrf,
      challenge,
      frames: JSON.stringify([`data:image/jpeg;base64,${'A'.repeat(1_000_000)}`]),
    };
    const other = new Browser(f.app, '198.51.100.20');
    expect((await other.post(`${path}/face`, big)).status).toBe(413);
    expect((await f.browser.post('/identity/authorize/ar_made_up/face', big)).status).toBe(413);
    expect((await f.browser.post(`${path}/face`, big)).status).not.toBe(413);
  });

  test('concurrent posts of one face step reach the provider once', async () => {
    // The check is slow to answer, so every post arrives while it runs.
    const svc = faceService(async () => {
      await Bun.sleep(300);
      return Response.json({ liveness: { passed: true, score: 0.9 }, match: { passed: false, score: 0.1 } });
    });
    const path = await atFace(httpFace(svc.url));
    const form = await facePage(path);
    const answers = await Promise.all(Array.from({ length: 8 }, () => sendFrames(path, form, FRAMES)));
    expect(svc.seen).toHaveLength(1);
    expect(answers.map(location)).toEqual(Array(8).fill(`${path}/face`));
  });

  test('http provider unreachable', async () => {
    const path = await atFace(httpFace('http://127.0.0.1:9/verify'));
    const q = callbackParams(await postFrames(path, FRAMES));
    expect(q.error_description).toContain('could not be reached');
  });

  test('no frames, or frames that are not images, are refused', async () => {
    const svc = faceService(() =>
      Response.json({ liveness: { passed: true, score: 1 }, match: { passed: true, score: 1 } }),
    );
    const path = await atFace(httpFace(svc.url));
    expect((await postFrames(path, ['javascript:alert(1)'])).status).toBe(400);
    const q = callbackParams(await postFrames(path, []));
    expect(q.error).toBe('access_denied');
    expect(svc.seen).toHaveLength(0);
  });

  test('a person without a face template cannot pass', async () => {
    const svc = faceService(() =>
      Response.json({ liveness: { passed: true, score: 1 }, match: { passed: true, score: 1 } }),
    );
    const path = await atFace(httpFace(svc.url));
    f.ctx.db.sql.prepare('UPDATE persons SET face_template_ref = NULL').run();
    const q = callbackParams(await postFrames(path, FRAMES));
    expect(q.error_description).toContain('no enrolled face template');
  });
});
