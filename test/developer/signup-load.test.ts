import { afterAll, afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { createApp } from '../../src/app.ts';
import { configurePasswordHashing } from '../../src/crypto/password.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { Browser, csrfOf, P, PASSWORD } from './portal-helpers.ts';

setDefaultTimeout(60_000);

const OPEN = '[developer]\nsignup = "open"\nsignups_per_ip = 100';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

/** A browser talking to the real server over HTTP. */
function browserOf(s: TestServer): Browser {
  const app = {
    request: (path: string, init?: RequestInit) => fetch(`${s.url}${path}`, { ...init, redirect: 'manual' }),
  };
  return new Browser(
    app as unknown as ReturnType<typeof createApp>,
    '127.0.0.1',
    `http://localhost:${s.port}`,
  );
}

/** Opens the sign-up form; the returned function submits it. */
async function signUpForm(s: TestServer, email: string): Promise<() => Promise<Response>> {
  const b = browserOf(s);
  const csrf = csrfOf(await (await b.get(`${P}/signup`)).text());
  return () =>
    b.post(`${P}/signup`, { csrf_token: csrf, email, name: 'Dev', password: PASSWORD, confirm: PASSWORD });
}

describe('sign-up under load', () => {
  // One hash at a time, so the sign-ups take several hash times and the event loop has a core.
  beforeAll(() => configurePasswordHashing({ size: 1 }));
  afterAll(() => configurePasswordHashing());

  // Issue 16: eight parallel sign-ups stalled every surface while argon2id ran on the event loop.
  test('/healthz keeps answering while eight sign-ups are hashing', async () => {
    server = await startTestServer({ extra: OPEN });
    const s = server;
    const forms = await Promise.all(
      Array.from({ length: 8 }, (_, i) => signUpForm(s, `dev${i}@example.com`)),
    );
    let signingUp = true;
    const signUps = Promise.all(forms.map((submit) => submit().then((res) => res.status)));
    void signUps.finally(() => {
      signingUp = false;
    });
    // On the event loop each answer waited for a hash to finish (11 answers during the eight hashes);
    // off it, an answer takes a millisecond or two, so 48 come back while the hashes still run.
    let answers = 0;
    while (signingUp && answers < 48) {
      const res = await fetch(`${s.url}/healthz`);
      expect(res.status).toBe(200);
      if (signingUp) answers++;
    }
    expect(answers).toBe(48);
    expect(await signUps).toEqual(Array(8).fill(303));
  });

  test('a sign-up that waits too long for a hash gets 503 with Retry-After and creates nothing', async () => {
    await configurePasswordHashing({ size: 1, queueTimeoutMs: 1 });
    server = await startTestServer({ extra: OPEN });
    const s = server;
    const forms = await Promise.all(
      Array.from({ length: 4 }, (_, i) => signUpForm(s, `dev${i}@example.com`)),
    );
    const answers = await Promise.all(forms.map((submit) => submit()));
    const busy = answers.filter((r) => r.status === 503);
    expect(busy.length).toBeGreaterThan(0);
    expect(busy[0]!.headers.get('retry-after')).toBe('1');
    expect(await busy[0]!.text()).toContain('The server is busy; try again in 1 second.');
    const created = s.ctx.db.sql.prepare<{ n: number }>('SELECT count(*) AS n FROM developers').get()!.n;
    expect(created).toBe(answers.filter((r) => r.status === 303).length);
  });
});
