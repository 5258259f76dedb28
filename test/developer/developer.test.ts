import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { listAudit } from '../../src/audit/audit.store.ts';
import { sha256Hex } from '../../src/crypto/tokens.ts';
import {
  acceptInvitation,
  claimInvitation,
  createDeveloper,
  createInvitation,
  findDeveloperByEmail,
  findInvitation,
  listDevelopers,
  normaliseEmail,
} from '../../src/developer/developer.store.ts';
import { ValidationError } from '../../src/errors.ts';
import { type TestContext, testContext } from '../helpers/context.ts';
import { storedText } from '../helpers/db-probes.ts';

let ctx: TestContext;
beforeEach(async () => {
  ctx = await testContext();
});
afterEach(() => ctx.cleanup());

describe('developers', () => {
  test('email is normalised and unique', () => {
    const { developerId } = createDeveloper(ctx.db, ctx.clock, { email: '  Dev@Example.COM ' });
    expect(findDeveloperByEmail(ctx.db, 'dev@example.com')?.developerId).toBe(developerId);
    expect(() => createDeveloper(ctx.db, ctx.clock, { email: 'dev@example.com' })).toThrow('already exists');
    expect(listDevelopers(ctx.db).length).toBe(1);
  });

  test('a malformed email is refused', () => {
    for (const bad of ['', 'nobody', 'a@b', 'a b@example.com', '@example.com'])
      expect(() => createDeveloper(ctx.db, ctx.clock, { email: bad })).toThrow(ValidationError);
  });

  const accept = async (token: string, input: { name?: string; passwordHash: string }) =>
    acceptInvitation(ctx.db, ctx.clock, await claimInvitation(ctx.db, ctx.clock, token), input);

  test('an invitation is single use, expires, and stores only its hash', async () => {
    const inv = await createInvitation(ctx.db, ctx.clock, { email: 'new@example.com' });
    expect(inv.token).toMatch(/^inv_/);
    const raw = storedText(ctx.db);
    expect(raw.includes(inv.token)).toBe(false);
    expect(raw.includes(await sha256Hex(inv.token))).toBe(true);

    expect((await findInvitation(ctx.db, ctx.clock, inv.token))?.email).toBe('new@example.com');
    const { developerId } = await accept(inv.token, { name: 'New', passwordHash: '$argon2id$test' });
    expect(findDeveloperByEmail(ctx.db, 'new@example.com')).toMatchObject({ developerId, hasPassword: true });
    expect(await findInvitation(ctx.db, ctx.clock, inv.token)).toBeUndefined();
    await expect(accept(inv.token, { passwordHash: '$argon2id$again' })).rejects.toThrow('already used');

    const late = await createInvitation(ctx.db, ctx.clock, { email: 'late@example.com', ttlSeconds: 60 });
    ctx.clock.advance(61_000);
    expect(await findInvitation(ctx.db, ctx.clock, late.token)).toBeUndefined();
    await expect(accept(late.token, { passwordHash: 'x' })).rejects.toThrow('expired');
    expect(findDeveloperByEmail(ctx.db, 'late@example.com')).toBeUndefined();
  });

  test('a claim cut off by a crash lapses after a minute; an accepted invitation never does', async () => {
    const inv = await createInvitation(ctx.db, ctx.clock, { email: 'new@example.com' });
    // The process dies while the password is hashed: claimed, no account.
    await claimInvitation(ctx.db, ctx.clock, inv.token);
    expect(await findInvitation(ctx.db, ctx.clock, inv.token)).toBeUndefined();
    ctx.clock.advance(59_000);
    await expect(claimInvitation(ctx.db, ctx.clock, inv.token)).rejects.toThrow('already used');
    ctx.clock.advance(1_000);
    expect((await findInvitation(ctx.db, ctx.clock, inv.token))?.email).toBe('new@example.com');
    const { developerId } = await accept(inv.token, { passwordHash: '$argon2id$test' });
    expect(findDeveloperByEmail(ctx.db, 'new@example.com')?.developerId).toBe(developerId);
    ctx.clock.advance(86_400_000);
    expect(await findInvitation(ctx.db, ctx.clock, inv.token)).toBeUndefined();
    await expect(accept(inv.token, { passwordHash: '$argon2id$again' })).rejects.toThrow('already used');
  });

  test('an invitation gives a password to an account created by an operator', async () => {
    const { developerId } = createDeveloper(ctx.db, ctx.clock, { email: 'op@example.com' });
    const inv = await createInvitation(ctx.db, ctx.clock, { email: 'op@example.com' });
    expect((await accept(inv.token, { passwordHash: 'h' })).developerId).toBe(developerId);
    await expect(createInvitation(ctx.db, ctx.clock, { email: 'op@example.com' })).rejects.toThrow(
      'already accepted',
    );
  });

  test('creating and inviting are audited', async () => {
    createDeveloper(ctx.db, ctx.clock, { email: 'a@example.com' });
    const inv = await createInvitation(ctx.db, ctx.clock, { email: 'b@example.com' });
    expect(listAudit(ctx.db).map((r) => r.action)).toEqual(['developer.invite', 'developer.create']);
    expect(JSON.stringify(listAudit(ctx.db))).not.toContain(inv.token);
  });
});

describe('developer addresses', () => {
  test.each([
    'a.b+tag@sub.example.co.uk',
    "o'brien@example.ie",
    'x_y-z@xn--bcher-kva.example',
    'Ada@Example.COM ',
  ])('accepts %s', (address) => {
    expect(normaliseEmail(address)).toBe(address.trim().toLowerCase());
  });

  // A mail library reads a display name and an address of its own out of these, and would verify and
  // mail another mailbox than the one stored.
  test.each([
    'ceo.example.com<attacker@evil.example>',
    '"ceo@example.com" <attacker@evil.example>',
    'a@example.com,b@evil.example',
    'a@example.com;b@evil.example',
    'ceo(comment)@example.com',
    'a..b@example.com',
    'a@example',
    'a@-example.com',
    'a b@example.com',
  ])('refuses %s', (address) => {
    expect(() => normaliseEmail(address)).toThrow(ValidationError);
  });
});
