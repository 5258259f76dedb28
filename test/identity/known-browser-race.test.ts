import { afterEach, expect, test } from 'bun:test';
import { argon2id } from 'hash-wasm';
import { hashPassword } from '../../src/crypto/password.ts';
import { createDeveloper, developerPasswordHash } from '../../src/developer/developer.store.ts';
import type { KnownBrowser } from '../../src/identity/known-browsers.ts';
import { passwordSignIn } from '../../src/identity/password-signin.ts';
import { unix } from '../../src/platform/clock.ts';
import { developerSignIn } from '../../src/portal/account.ts';
import { type TestContext, testContext } from '../helpers/context.ts';

/**
 * The owner sets a new password while a sign-in with the old one is being checked (argon2 takes a
 * while): that sign-in succeeds, as checked, but the browser is known only to the password it knew,
 * and a re-hash of the old password does not undo the new one.
 */
let ctx: TestContext;
afterEach(() => ctx?.cleanup());

const OLD = 'old password, leaked';
/** A hash of `password` with other parameters than Verity's, which a successful sign-in replaces. */
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

/** A browser whose recognition runs just after the stored hash was read: the change lands there. */
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

test('a person: the browser is not remembered under the password set meanwhile, nor that password undone', async () => {
  ctx = await testContext();
  const now = unix(ctx.clock);
  ctx.db.sql
    .prepare(
      `INSERT INTO persons (id, external_id, environment, name, password_hash, assurance_level, identity_verified,
         status, created_at, updated_at)
       VALUES ('psn_v', 'ext-v', 'production', 'Victim', ?, 'substantial', 1, 'active', ?, ?)`,
    )
    .run(await foreignHash(OLD), now, now);
  ctx.db.sql
    .prepare('INSERT INTO person_emails (person_id, email, verified, "primary") VALUES (\'psn_v\', ?, 1, 1)')
    .run('victim@example.org');
  const newHash = await hashPassword('new password, the owner set it');
  const browser = changedMeanwhile(() =>
    ctx.db.sql.prepare("UPDATE persons SET password_hash = ? WHERE id = 'psn_v'").run(newHash),
  );
  const r = await passwordSignIn(ctx, {
    email: 'victim@example.org',
    password: OLD,
    ip: '198.51.100.9',
    browser,
  });
  expect(r.ok).toBe(true);
  expect(browser.remembered).toHaveLength(1);
  expect(browser.remembered).not.toContain(newHash);
  const stored = ctx.db.sql
    .prepare<{ h: string }>("SELECT password_hash AS h FROM persons WHERE id = 'psn_v'")
    .get()!.h;
  expect(stored).toBe(newHash);
});

test('a developer: the same', async () => {
  ctx = await testContext();
  const { developerId } = createDeveloper(ctx.db, ctx.clock, {
    email: 'dev@example.com',
    passwordHash: await foreignHash(OLD),
    verified: true,
  });
  const newHash = await hashPassword('new password, the owner set it');
  const browser = changedMeanwhile(() =>
    ctx.db.sql.prepare('UPDATE developers SET password_hash = ? WHERE id = ?').run(newHash, developerId),
  );
  const r = await developerSignIn(ctx, {
    email: 'dev@example.com',
    password: OLD,
    ip: '198.51.100.9',
    browser,
  });
  expect(r.ok).toBe(true);
  expect(browser.remembered).toHaveLength(1);
  expect(browser.remembered).not.toContain(newHash);
  expect(developerPasswordHash(ctx.db, developerId)).toBe(newHash);
});
