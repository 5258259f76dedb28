import { afterEach, describe, expect, test } from 'bun:test';
import { liveCapabilities } from '../../src/capabilities/availability.ts';
import { cacheVersion } from '../../src/db/cache-versions.ts';
import { type Db, databaseTarget, openDb } from '../../src/db/open.ts';
import { releasablePerson } from '../../src/persons/person.store.ts';
import { type TestContext, testContext } from '../helpers/context.ts';
import { nextTurn } from '../helpers/wait.ts';

let ctx: TestContext;
let other: Db;
afterEach(() => {
  other?.close();
  ctx?.cleanup();
});

/** A context, and a second connection to its database standing for another process (the CLI). */
async function setup() {
  ctx = await testContext();
  other = await openDb(databaseTarget(ctx.config));
}

describe('cache versions', () => {
  test("another process's change to the overrides is served from the next turn on", async () => {
    await setup();
    const bodies = liveCapabilities(ctx.db);
    const before = JSON.stringify(bodies());
    const v = cacheVersion(ctx.db, 'capabilities');
    other.sql
      .prepare(
        "INSERT INTO capability_overrides (country, document_type, available, updated_at) VALUES ('DE', 'passport', 0, 1)",
      )
      .run();
    await nextTurn();
    expect(cacheVersion(ctx.db, 'capabilities')).toBe(v + 1);
    expect(JSON.stringify(bodies())).not.toBe(before);
  });

  test('a signing key retired by another process signs no further token, without waiting', async () => {
    await setup();
    const { kid } = await ctx.keys.signingKey();
    other.sql.prepare("UPDATE signing_keys SET state = 'retired' WHERE kid = ?").run(kid);
    await nextTurn();
    await expect(ctx.keys.signingKey()).rejects.toThrow('no active RS256 signing key');
    expect(await ctx.keys.jwksBody()).toContain(kid);
  });

  const ADA = 'psn_sandbox_ada';
  const released = () => {
    const p = releasablePerson(ctx, ADA)!;
    return {
      name: p.givenName,
      emails: p.emails.map((e) => [e.email, e.verified]),
      phones: p.phones.map((x) => [x.phone, x.verified]),
    };
  };
  type Change = [string, string, keyof ReturnType<typeof released>];
  /** A contact added, changed and removed, in its table. */
  const contactChanges = (kind: 'email' | 'phone', value: string): Change[] => [
    [
      `an added ${kind}`,
      `INSERT INTO person_${kind}s (person_id, ${kind}, verified, "primary") VALUES ('${ADA}', '${value}', 1, 0)`,
      `${kind}s`,
    ],
    [
      `a changed ${kind}`,
      `UPDATE person_${kind}s SET verified = 1 - verified WHERE person_id = '${ADA}'`,
      `${kind}s`,
    ],
    [`a removed ${kind}`, `DELETE FROM person_${kind}s WHERE person_id = '${ADA}'`, `${kind}s`],
  ];
  // Every table UserInfo's person is read from, and every kind of write to it (migrations/0018).
  const changes: Change[] = [
    ['a name', `UPDATE persons SET given_name = 'Zoe' WHERE id = '${ADA}'`, 'name'],
    ...contactChanges('email', 'new@example.com'),
    ...contactChanges('phone', '+15550000000'),
  ];
  for (const [what, statement, view] of changes)
    test(`a person's data: ${what} by another process is released from the next turn on`, async () => {
      await setup();
      const before = released()[view];
      other.sql.prepare(statement).run();
      await nextTurn();
      expect(released()[view]).not.toEqual(before);
    });

  test("a person's data is read once while nothing changes, and never from a transaction rolled back", async () => {
    await setup();
    const first = releasablePerson(ctx, ADA)!;
    // On PostgreSQL it is read every time (person.store.ts).
    if (ctx.db.engine === 'sqlite') expect(releasablePerson(ctx, ADA)).toBe(first);
    expect(Object.isFrozen(first.emails)).toBe(ctx.db.engine === 'sqlite');
    expect(() =>
      ctx.db.sql.transaction(() => {
        ctx.db.sql.prepare(`UPDATE persons SET given_name = 'Zoe' WHERE id = '${ADA}'`).run();
        expect(releasablePerson(ctx, ADA)!.givenName).toBe('Zoe');
        throw new Error('rolled back');
      }),
    ).toThrow('rolled back');
    expect(releasablePerson(ctx, ADA)!.givenName).toBe(first.givenName);
  });
});
