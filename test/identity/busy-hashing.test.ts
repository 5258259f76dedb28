import { afterAll, afterEach, beforeAll, expect, setDefaultTimeout, test } from 'bun:test';
import { configurePasswordHashing, hashPassword } from '../../src/crypto/password.ts';
import { createPersonStore } from '../../src/persons/person.store.ts';
import { unix } from '../../src/platform/clock.ts';
import { Browser, type Flow, flow, open } from './flow-helpers.ts';

setDefaultTimeout(30_000);

const PASSWORD = 'correct horse battery staple';
let hash: string;

// One hash at a time, and a job waits at most a millisecond for it: concurrent sign-ins find the pool
// busy. Retry-After is the wait rounded up to a second.
beforeAll(async () => {
  hash = await hashPassword(PASSWORD);
  await configurePasswordHashing({ size: 1, queueTimeoutMs: 1 });
});
afterAll(() => configurePasswordHashing());

let f: Flow;
afterEach(() => f?.cleanup());

async function setup() {
  f = await flow({ environment: 'production' });
  const now = unix(f.ctx.clock);
  const persons = createPersonStore(f.ctx.db);
  persons.insert({
    id: 'psn_grace',
    externalId: 'ext-grace',
    environment: 'production',
    name: 'Grace Hopper',
    givenName: 'Grace',
    familyName: 'Hopper',
    passwordHash: hash,
    assuranceLevel: 'substantial',
    identityVerified: true,
    faceTemplateRef: 'tpl_grace',
    status: 'active',
    createdAt: now,
    updatedAt: now,
  });
  persons.replaceEmails('psn_grace', [{ email: 'grace@example.org', verified: true, primary: true }]);
}

/**
 * Opens a sign-in form in `n` browsers, then submits them all at once. `page` gives the form's path
 * in a browser (the flow's sign-in page belongs to the browser that started the flow).
 */
async function signInAtOnce(n: number, page: (b: Browser) => Promise<string>, password = PASSWORD) {
  const forms = await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const b = new Browser(f.app, `198.51.100.${10 + i}`);
      const path = await page(b);
      const { csrf } = await open(b, path);
      return () => b.post(`${path}/signin`, { csrf_token: csrf, email: 'grace@example.org', password });
    }),
  );
  return Promise.all(forms.map((submit) => submit()));
}

/** Every busy answer is the identity error page with 503 and Retry-After; it counted no failure. */
async function expectBusyPages(answers: Response[]) {
  const busy = answers.filter((r) => r.status === 503);
  expect(busy.length).toBeGreaterThan(0);
  expect(answers.filter((r) => r.status === 500)).toEqual([]);
  for (const res of busy) {
    expect(res.headers.get('retry-after')).toBe('1');
    const html = await res.text();
    expect(html).toContain('<p role="alert">The server is busy. Try again in 1 second.</p>');
    expect(html).toContain(res.headers.get('x-request-id')!);
    expect(html).toContain('<title>');
  }
  return busy.length;
}

const attempts = () =>
  f.ctx.db.sql.prepare<{ n: number }>('SELECT count(*) AS n FROM signin_attempts').get()!.n;

test('the sign-in flow answers a busy hashing pool with 503, Retry-After and its own page', async () => {
  await setup();
  // A wrong password: a sign-in that got its hash records a failure, a busy one must not.
  const answers = await signInAtOnce(4, (b) => f.authorize({}, b), 'wrong password');
  await expectBusyPages(answers);
  const refused = answers.filter((r) => r.status === 401).length;
  // The failures count against the email, the person and each one's address.
  expect(attempts()).toBe(refused === 0 ? 0 : 2 + refused);
});

test('the account page answers a busy hashing pool with 503, Retry-After and its own page', async () => {
  await setup();
  const answers = await signInAtOnce(4, async () => '/identity/account');
  const busy = await expectBusyPages(answers);
  // The others signed in (back to the account page); the busy ones got no session.
  expect(answers.filter((r) => r.status === 303).length).toBe(4 - busy);
});
