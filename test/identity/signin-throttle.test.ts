import { afterEach, describe, expect, test } from 'bun:test';
import { argon2id } from 'hash-wasm';
import { hashPassword, needsRehash } from '../../src/crypto/password.ts';
import { createDeveloper, developerPasswordHash } from '../../src/developer/developer.store.ts';
import type { KnownBrowser } from '../../src/identity/known-browsers.ts';
import { passwordSignIn } from '../../src/identity/password-signin.ts';
import { createSigninThrottle } from '../../src/identity/signin-throttle.ts';
import { unix } from '../../src/platform/clock.ts';
import { developerSignIn } from '../../src/portal/account.ts';
import { type TestContext, testContext } from '../helpers/context.ts';

let ctx: TestContext;
afterEach(() => ctx?.cleanup());

const NOW = 1_800_000_000;

test('IPv6 guesses are counted per /64: a fresh address from the same network does not reset the count', async () => {
  ctx = await testContext();
  const t = createSigninThrottle(ctx.db, { perAccount: 100, perIp: 3, window: 600 });
  for (const [i, ip] of ['2001:db8:1:2::a', '2001:db8:1:2:ffff::b', '2001:0db8:0001:0002::c'].entries())
    expect(t.attempt(`person${i}@example.com`, ip, NOW)).toBe('counted');
  expect(t.attempt('new@example.com', '2001:db8:1:2:dead:beef:0:1', NOW)).toBe('throttled');
  expect(t.attempt('new@example.com', '2001:db8:1:3::1', NOW)).toBe('counted');
  expect(t.attempt('new@example.com', '2001:db8:1:2::1', NOW + 600)).toBe('counted');
});

test('an IPv4 address counts the same written plainly or IPv4-mapped, and one IPv4 address is not its neighbour', async () => {
  ctx = await testContext();
  const t = createSigninThrottle(ctx.db, { perAccount: 100, perIp: 2, window: 600 });
  expect(t.attempt('a@example.com', '198.51.100.7', NOW)).toBe('counted');
  expect(t.attempt('b@example.com', '::ffff:198.51.100.7', NOW)).toBe('counted');
  expect(t.attempt('c@example.com', '198.51.100.7', NOW)).toBe('throttled');
  expect(t.attempt('c@example.com', '::ffff:c633:6407', NOW)).toBe('throttled');
  expect(t.attempt('c@example.com', '198.51.100.8', NOW)).toBe('counted');
});

/** A hash of `password` with other parameters than Verity's (an import), which a sign-in replaces. */
const foreignHash = (password: string) =>
  argon2id({
    password,
    salt: crypto.getRandomValues(new Uint8Array(16)),
    parallelism: 1,
    iterations: 3,
    memorySize: 8192,
    hashLength: 32,
    outputType: 'encoded',
  });

/** A production person with a password (or its ready hash) and these emails (the first primary). */
async function personWithPassword(password: string, emails = ['victim@example.org'], hash?: string) {
  const now = unix(ctx.clock);
  ctx.db.sql
    .prepare(
      `INSERT INTO persons (id, external_id, environment, name, password_hash, assurance_level, identity_verified,
         status, created_at, updated_at)
       VALUES ('psn_v', 'ext-v', 'production', 'Victim', ?, 'substantial', 1, 'active', ?, ?)`,
    )
    .run(hash ?? (await hashPassword(password)), now, now);
  const addEmail = ctx.db.sql.prepare(
    'INSERT INTO person_emails (person_id, email, verified, "primary") VALUES (\'psn_v\', ?, 1, ?)',
  );
  for (const [i, email] of emails.entries()) addEmail.run(email, i === 0 ? 1 : 0);
}

test('a person with two emails gets the per-account guesses once, not once per email', async () => {
  ctx = await testContext({ extra: '[identity]\nsignin_attempts_per_account = 5' });
  await personWithPassword('the real password, long', ['one@example.org', 'two@example.org']);
  // Each guess from a fresh address, so only the account limits apply.
  const guess = (email: string, i: number, password = 'wrong') =>
    passwordSignIn(ctx, { email, password, ip: `192.0.2.${i}` });
  for (let i = 0; i < 5; i++)
    expect(await guess(i % 2 ? 'two@example.org' : 'one@example.org', i)).toEqual({
      ok: false,
      reason: 'invalid',
    });
  // Past them, every address of the person fails as a wrong password does, the right password too:
  // a "throttled" at an address's first try would tell that the address is theirs.
  expect(await guess('two@example.org', 10)).toEqual({ ok: false, reason: 'invalid' });
  expect(await guess('one@example.org', 11, 'the real password, long')).toEqual({
    ok: false,
    reason: 'invalid',
  });
  // An email that is nobody's still counts for itself alone.
  expect(await guess('nobody@example.org', 12)).toEqual({ ok: false, reason: 'invalid' });
  ctx.clock.advance(15 * 60_000);
  expect((await guess('two@example.org', 13, 'the real password, long')).ok).toBe(true);
});

test('guesses sent side by side stop at the per-account limit: the right one among the later ones is refused', async () => {
  ctx = await testContext({ extra: '[identity]\nsignin_attempts_per_account = 5' });
  await personWithPassword('correct horse battery');
  const results = await Promise.all(
    Array.from({ length: 30 }, (_, i) =>
      passwordSignIn(ctx, {
        email: 'victim@example.org',
        password: i === 29 ? 'correct horse battery' : `wrong-${i}`,
        ip: `192.0.2.${i + 1}`,
      }),
    ),
  );
  expect(results.filter((r) => !r.ok && r.reason === 'invalid')).toHaveLength(5);
  expect(results.slice(5).every((r) => !r.ok && r.reason === 'throttled')).toBe(true);
});

test('a successful sign-in takes back its count at the address: it never uses up the address limit', async () => {
  ctx = await testContext({ extra: '[identity]\nsignin_attempts_per_ip = 2' });
  await personWithPassword('correct horse battery');
  const signIn = (password: string) =>
    passwordSignIn(ctx, { email: 'victim@example.org', password, ip: '198.51.100.9' });
  for (let i = 0; i < 4; i++) expect((await signIn('correct horse battery')).ok).toBe(true);
  expect(await signIn('wrong')).toEqual({ ok: false, reason: 'invalid' });
  expect((await signIn('correct horse battery')).ok).toBe(true);
  expect(await signIn('wrong')).toEqual({ ok: false, reason: 'invalid' });
  expect(await signIn('correct horse battery')).toEqual({ ok: false, reason: 'throttled' });
});

test('an attempt whose password was never checked (a busy hashing pool) counts for nothing', async () => {
  ctx = await testContext();
  const t = createSigninThrottle(ctx.db, { perAccount: 1, perIp: 1, window: 600 });
  const busy = () =>
    t.check('a@example.com', '192.0.2.1', undefined, async () => {
      throw new Error('busy');
    });
  expect(t.attempt('a@example.com', '192.0.2.1', NOW)).toBe('counted');
  await expect(busy()).rejects.toThrow('busy');
  expect(ctx.db.sql.prepare('SELECT key FROM signin_attempts').all()).toEqual([]);
  expect(t.attempt('a@example.com', '192.0.2.1', NOW)).toBe('counted');
  expect(t.attempt('a@example.com', '192.0.2.1', NOW)).toBe('throttled');
});

test('a hash made with other parameters (an import) is replaced at the next sign-in, not at a failed one', async () => {
  ctx = await testContext();
  await personWithPassword('correct horse battery');
  const imported = await foreignHash('correct horse battery');
  const stored = () =>
    ctx.db.sql.prepare<{ h: string }>("SELECT password_hash AS h FROM persons WHERE id = 'psn_v'").get()!.h;
  ctx.db.sql.prepare("UPDATE persons SET password_hash = ? WHERE id = 'psn_v'").run(imported);
  expect(needsRehash(imported)).toBe(true);
  const signIn = (password: string) =>
    passwordSignIn(ctx, { email: 'victim@example.org', password, ip: '198.51.100.9' });
  expect((await signIn('wrong')).ok).toBe(false);
  expect(stored()).toBe(imported);
  expect((await signIn('correct horse battery')).ok).toBe(true);
  expect(stored()).not.toBe(imported);
  expect(needsRehash(stored())).toBe(false);
  expect((await signIn('correct horse battery')).ok).toBe(true);
});

/** A browser whose recognition runs just after the stored hash was read: a password change lands there. */
function changedMeanwhile(change: () => void): KnownBrowser & { remembered: string[] } {
  const remembered: string[] = [];
  return {
    remembered,
    async recognise() {
      change();
      return undefined;
    },
    async remember(_id, hash) {
      remembered.push(hash);
    },
  };
}

describe('a new password set while a sign-in with the old one is checked', () => {
  const OLD = 'old password, leaked';
  const NEW = 'new password, the owner set it';
  /** That sign-in succeeds, as checked; the browser is not known to the new password, nor is it undone. */
  async function expectCheckedOnly(
    signIn: (browser: KnownBrowser) => Promise<{ ok: boolean }>,
    setHash: (hash: string) => void,
    storedHash: () => string | null,
  ) {
    const newHash = await hashPassword(NEW);
    const browser = changedMeanwhile(() => setHash(newHash));
    expect((await signIn(browser)).ok).toBe(true);
    expect(browser.remembered).toHaveLength(1);
    expect(browser.remembered).not.toContain(newHash);
    expect(storedHash()).toBe(newHash);
  }

  test('a person', async () => {
    ctx = await testContext();
    await personWithPassword(OLD, undefined, await foreignHash(OLD));
    const hashOf = ctx.db.sql.prepare<{ h: string }>(
      "SELECT password_hash AS h FROM persons WHERE id = 'psn_v'",
    );
    await expectCheckedOnly(
      (browser) =>
        passwordSignIn(ctx, { email: 'victim@example.org', password: OLD, ip: '198.51.100.9', browser }),
      (hash) => ctx.db.sql.prepare("UPDATE persons SET password_hash = ? WHERE id = 'psn_v'").run(hash),
      () => hashOf.get()!.h,
    );
  });

  test('a developer', async () => {
    ctx = await testContext();
    const { developerId } = createDeveloper(ctx.db, ctx.clock, {
      email: 'dev@example.com',
      passwordHash: await foreignHash(OLD),
      verified: true,
    });
    await expectCheckedOnly(
      (browser) =>
        developerSignIn(ctx, { email: 'dev@example.com', password: OLD, ip: '198.51.100.9', browser }),
      (hash) =>
        ctx.db.sql.prepare('UPDATE developers SET password_hash = ? WHERE id = ?').run(hash, developerId),
      () => developerPasswordHash(ctx.db, developerId),
    );
  });
});
