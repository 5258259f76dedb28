import { afterEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { argon2id } from 'hash-wasm';
import { configurePasswordHashing, verifyPassword } from '../../src/crypto/password.ts';
import { findDeveloperByEmail } from '../../src/developer/developer.store.ts';
import { importPersons } from '../../src/persons/import.ts';
import { csrfOf } from '../identity/flow-helpers.ts';
import { jsonl, record } from '../persons/fixtures.ts';
import {
  Browser,
  formPost,
  P,
  PASSWORD,
  type Portal,
  page,
  portal,
  signUp,
  submit,
} from './portal-helpers.ts';

setDefaultTimeout(60_000);

/**
 * A password check takes the hashing pool tens of milliseconds; a reset, a change or an import may
 * set another password meanwhile. Whatever the check decides about the old password must not outlive
 * it. The pool is held to one worker, busy with a slow check, so the jobs queue in a known order: the
 * new password's hash first, then the check of the old one.
 */
const slowHash = () =>
  argon2id({
    password: 'x',
    salt: new Uint8Array(16).fill(1),
    parallelism: 1,
    iterations: 2,
    memorySize: 65536,
    hashLength: 32,
    outputType: 'encoded',
  });

/**
 * Starts `first`, then `second` once `first` has had time to queue its job, while the only worker is
 * busy with a slow check; waits for both before the pool is set back.
 */
async function whileHeld<A, B>(first: () => Promise<A>, second: () => Promise<B>): Promise<[A, B]> {
  const slow = await slowHash();
  await configurePasswordHashing({ size: 1 });
  try {
    const holding = verifyPassword('y', slow);
    const a = first();
    await Bun.sleep(20);
    const [, ...done] = await Promise.all([holding, a, second()]);
    return done;
  } finally {
    await configurePasswordHashing();
  }
}

const OWNER_PASSWORD = 'the owner’s brand new passphrase';

describe('a password check under way when the password changes', () => {
  let p: Portal;
  let mail: string[];
  afterEach(() => p?.cleanup());

  /** An account made in the owner's address by someone else, and the owner's reset ready to send. */
  async function squattedWithReset() {
    mail = [];
    p = await portal();
    p.ctx.email = { send: async (m) => void mail.push(m.text) };
    const squatter = await signUp(p, 'owner@example.com', { verified: false });
    await submit(new Browser(p.app), `${P}/forgot-password`, `${P}/forgot-password`, {
      email: 'owner@example.com',
    });
    await Bun.sleep(0);
    const reset = new URL(/https?:\/\/\S+/.exec(mail.at(-1)!)![0].replace(/"$/, '')).pathname;
    const ownerResets = await formPost(new Browser(p.app, '203.0.113.9'), reset, reset, {
      password: OWNER_PASSWORD,
      confirm: OWNER_PASSWORD,
    });
    return { squatter, ownerResets };
  }

  async function signIn(password: string, b = new Browser(p.app, '203.0.113.10')) {
    const res = await (
      await formPost(b, `${P}/signin`, `${P}/signin`, { email: 'owner@example.com', password })
    )();
    return { res, apps: (await b.get(`${P}/apps`)).status };
  }

  test('a developer sign-in checked against the password a reset replaced signs nobody in', async () => {
    const { ownerResets } = await squattedWithReset();
    const squatter = new Browser(p.app, '198.51.100.66');
    const signsIn = await formPost(squatter, `${P}/signin`, `${P}/signin`, {
      email: 'owner@example.com',
      password: PASSWORD,
    });
    const [, res] = await whileHeld(ownerResets, signsIn);
    expect(res.status).toBe(401);
    expect(await res.text()).toContain('The password was changed while it was being checked');
    expect((await squatter.get(`${P}/apps`)).status).toBe(303);
    expect((await signIn(OWNER_PASSWORD)).apps).toBe(200);
  });

  test('a password change checked against the password a reset replaced changes nothing', async () => {
    const { squatter, ownerResets } = await squattedWithReset();
    const changes = await formPost(squatter, `${P}/account`, `${P}/account/password`, {
      current: PASSWORD,
      password: 'the squatter’s next password',
      confirm: 'the squatter’s next password',
    });
    const [, res] = await whileHeld(ownerResets, changes);
    expect(res.status).toBe(400);
    expect((await squatter.get(`${P}/apps`)).status).toBe(303);
    expect((await signIn('the squatter’s next password')).res.status).toBe(401);
    expect((await signIn(OWNER_PASSWORD)).apps).toBe(200);
  });

  test('a person’s sign-in checked against the password an import replaced signs nobody in', async () => {
    p = await portal();
    const OLD = 'the old upstream password';
    await importPersons(p.ctx, jsonl(record({ password: OLD })));
    const b = new Browser(p.app, '198.51.100.77');
    const csrf = csrfOf(await (await b.get('/identity/account')).text());
    const signsIn = () =>
      b.post('/identity/account/signin', { csrf_token: csrf, email: 'maria@example.com', password: OLD });
    // An upstream reset arrives as a hash, so the import takes no worker: it commits while the
    // sign-in's check of the old password waits for one.
    const upstream = await argon2id({
      password: 'the new upstream password',
      salt: new Uint8Array(16).fill(2),
      parallelism: 1,
      iterations: 2,
      memorySize: 19456,
      hashLength: 32,
      outputType: 'encoded',
    });
    const [res] = await whileHeld(signsIn, () =>
      importPersons(p.ctx, jsonl(record({ passwordHash: upstream }))),
    );
    expect(res.status).toBe(401);
    expect(await res.text()).toContain('The password was changed while it was being checked');
    expect(await (await b.get('/identity/account')).text()).not.toContain('Maria Schmidt');
  });
});

test('sign-in guesses typed at the identity pages do not count against a developer’s password change', async () => {
  const p = await portal();
  try {
    const dev = await signUp(p, 'dev@example.com');
    const id = findDeveloperByEmail(p.ctx.db, 'dev@example.com')!.developerId;
    const guesser = new Browser(p.app, '198.51.100.88');
    for (let i = 0; i < 6; i++) {
      const csrf = csrfOf(await (await guesser.get('/identity/account')).text());
      await guesser.post('/identity/account/signin', {
        csrf_token: csrf,
        email: `password-change:${id}`,
        password: 'guess',
      });
    }
    const { csrf } = await page(dev, `${P}/account`);
    const res = await dev.post(`${P}/account/password`, {
      csrf_token: csrf,
      current: PASSWORD,
      password: 'a new long passphrase',
      confirm: 'a new long passphrase',
    });
    expect(res.status).toBe(303);
  } finally {
    p.cleanup();
  }
});
